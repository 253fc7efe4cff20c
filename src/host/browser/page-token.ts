// The token the Airlock server put in this page (src/protocol/server.ts): every request to
// an endpoint of the server carries it, or the server refuses the request.

import { PAGE_TOKEN_HEADER, PAGE_TOKEN_META } from '../../protocol/server.js';

/** This page's token, or undefined when the page was not served by an Airlock server. */
export function pageToken(doc: Document | undefined = globalThis.document): string | undefined {
  return doc?.querySelector(`meta[name="${PAGE_TOKEN_META}"]`)?.getAttribute('content') ?? undefined;
}

/** Headers that identify this page to its server (empty when it has no token). */
export function pageHeaders(token = pageToken()): Record<string, string> {
  return token === undefined ? {} : { [PAGE_TOKEN_HEADER]: token };
}
