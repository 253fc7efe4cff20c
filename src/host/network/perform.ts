// Carries out a sandbox's network request for the host: every hop (the first request and
// each redirect) is checked against the policy before it is made, and the body is read up
// to networkResponseBytes. The hop itself is the platform's (Node: fetch; browser: the
// server's gateway), and never follows redirects on its own.

import type { NetFailure, NetHead, NetRequest } from '../../protocol/network.js';
import { decide, type NetworkPolicy } from './policy.js';

export interface HopRequest {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body?: Uint8Array;
  signal: AbortSignal;
}

export interface HopResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: ReadableStream<Uint8Array> | undefined;
}

export interface NetworkPlatform {
  /** One HTTP exchange, redirects not followed. */
  hop(request: HopRequest): Promise<HopResponse>;
  /** Addresses a host name resolves to (for the private-address floor), if the platform can tell. */
  resolve?(host: string): Promise<string[]>;
}

export interface Performed {
  head: NetHead;
  body: Uint8Array;
}

/** Thrown by a hop the far side refused (the server's gateway policy). */
export class HopRefusedError extends Error {}

class NetError extends Error {
  constructor(
    readonly failure: NetFailure,
    message: string,
  ) {
    super(message);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function performRequest(request: NetRequest, policy: NetworkPolicy | undefined, responseBytes: number, platform: NetworkPlatform): Promise<Performed> {
  try {
    return await perform(request, policy, responseBytes, platform);
  } catch (error) {
    if (error instanceof NetError) return { head: { ok: false, failure: error.failure, message: error.message }, body: new Uint8Array(0) };
    if (error instanceof HopRefusedError) return fail('refused', error.message);
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') return fail('timeout', `no answer within ${request.timeoutMs} ms`);
    if (cause === 'ENOTFOUND' || cause === 'EAI_AGAIN') return fail('resolve', `could not resolve host`);
    if (cause === 'ECONNREFUSED') return fail('refused', 'connection refused');
    return fail('failed', error instanceof Error ? error.message : String(error));
  }
}

function fail(failure: NetFailure, message: string): Performed {
  return { head: { ok: false, failure, message }, body: new Uint8Array(0) };
}

async function perform(request: NetRequest, policy: NetworkPolicy | undefined, responseBytes: number, platform: NetworkPlatform): Promise<Performed> {
  const signal = AbortSignal.timeout(Math.max(1, request.timeoutMs));
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new NetError('bad-url', `malformed URL: ${request.url}`);
  }
  let method = request.method.toUpperCase();
  let body = request.body;
  let headers = request.headers;
  for (let hop = 0; ; hop++) {
    const resolved = platform.resolve !== undefined && !/^[\d.]+$|:/.test(url.hostname) ? await platform.resolve(url.hostname).catch(() => []) : [];
    const decision = await decide(policy, method, url, resolved);
    if (!decision.allowed) throw new NetError('refused', `refused by the sandbox's network policy: ${decision.reason}`);
    const response = await platform.hop({ method, url: url.href, headers, body, signal });
    const location = response.headers.find(([name]) => name.toLowerCase() === 'location')?.[1];
    if (request.followRedirects && REDIRECTS.has(response.status) && location !== undefined) {
      if (hop >= request.maxRedirects) throw new NetError('too-many-redirects', `more than ${request.maxRedirects} redirects`);
      const next = new URL(location, url);
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      // Credentials do not follow a redirect to another host (as curl does).
      if (next.host !== url.host) headers = headers.filter(([name]) => !['authorization', 'cookie'].includes(name.toLowerCase()));
      url = next;
      continue;
    }
    const content = await readCapped(response.body, responseBytes);
    return {
      head: { ok: true, status: response.status, statusText: response.statusText, url: url.href, headers: response.headers },
      body: content,
    };
  }
}

async function readCapped(body: ReadableStream<Uint8Array> | undefined, limit: number): Promise<Uint8Array> {
  if (body === undefined) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel();
      throw new NetError('too-large', `the response is larger than networkResponseBytes (${limit} bytes)`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
