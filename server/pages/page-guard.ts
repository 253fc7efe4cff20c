// Which requests come from a page this server served (ARCHITECTURE.md §7). Any website open
// in the same browser can send requests to 127.0.0.1, so an endpoint a page uses wants:
// - the page's token (page-token.ts) in the x-airlock-page-token header: another site never
//   saw it, and a cross-origin request carrying a custom header needs a CORS preflight this
//   server never grants;
// - no Sec-Fetch-Site or Origin saying another site sent it;
// - a Host that is the server's own (a DNS-rebinding page calls it under its own name).

import type { IncomingHttpHeaders } from 'node:http';
import { PAGE_TOKEN_HEADER } from '../../src/protocol/server.js';
import type { PageTokens } from './page-token.js';

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/i;

/**
 * Why a request with these headers is not from one of this server's pages, or undefined.
 * `hosts` are the Host values the server answers to besides loopback names (its configured
 * public name, when it listens beyond loopback).
 */
export function foreignPageReason(headers: IncomingHttpHeaders, tokens: PageTokens, hosts: readonly string[] = []): string | undefined {
  const host = headers.host ?? '';
  if (!LOOPBACK_HOST.test(host) && !hosts.includes(host.toLowerCase())) return `Host ${JSON.stringify(host)} is not this server's address`;
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return `Sec-Fetch-Site is ${site}`;
  const origin = headers.origin;
  if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) return `Origin ${origin} is not this server`;
  const token = headers[PAGE_TOKEN_HEADER];
  if (!tokens.verify(Array.isArray(token) ? token[0] : token)) return `no valid page token (${PAGE_TOKEN_HEADER}): only pages this server served may call it`;
  return undefined;
}
