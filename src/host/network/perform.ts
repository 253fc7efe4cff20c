// Carries out a sandbox's network request for the host: every hop (the first request and
// each redirect) is checked against the policy before it is made, and the body is read up
// to networkResponseBytes. The hop itself is the platform's (Node: fetch; browser: the
// server's gateway), and never follows redirects on its own.

import type { NetFailure, NetHead, NetRequest } from '../../protocol/network.js';
import type { DecisionReport } from './decision-report.js';
import { decide, type NetworkPolicy, type Resolver } from './policy.js';
import { requestHeadersProblem } from './request-headers.js';
import { scrub, scrubText, secretHeaders, withSecrets } from './secrets.js';
import { readCapped } from '../read-capped.js';

export interface HopRequest {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body?: Uint8Array;
  signal: AbortSignal;
  /** The addresses the policy checked: connect only to these (empty: by name, where the far side decides again). */
  addresses: string[];
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
  /** Every address a host name resolves to (for the SSRF floor), if the platform can look names up. */
  resolve?: Resolver;
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

/**
 * Told of every hop's decision (the audit hook): the method, the URL and the report — a
 * refusal at once; an allowed hop once it is over, with its status, bytes and time.
 */
export type DecisionListener = (method: string, url: URL, report: DecisionReport) => void;

export async function performRequest(request: NetRequest, policy: NetworkPolicy | undefined, responseBytes: number, platform: NetworkPlatform, onDecision?: DecisionListener): Promise<Performed> {
  try {
    return await perform(request, policy, responseBytes, platform, onDecision);
  } catch (error) {
    if (error instanceof NetError) return { head: { ok: false, failure: error.failure, message: error.message }, body: new Uint8Array(0) };
    if (error instanceof HopRefusedError) return fail('refused', error.message);
    const cause = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') return fail('timeout', `no answer within ${request.timeoutMs} ms`);
    if (cause === 'ENOTFOUND' || cause === 'EAI_AGAIN') return fail('resolve', `could not resolve host`);
    if (cause === 'ECONNREFUSED') return fail('refused', 'connection refused');
    return fail('failed', error instanceof Error ? error.message : String(error));
  }
}

function fail(failure: NetFailure, message: string): Performed {
  return { head: { ok: false, failure, message }, body: new Uint8Array(0) };
}

async function perform(request: NetRequest, policy: NetworkPolicy | undefined, responseBytes: number, platform: NetworkPlatform, onDecision: DecisionListener | undefined): Promise<Performed> {
  const signal = AbortSignal.timeout(Math.max(1, request.timeoutMs));
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new NetError('bad-url', `malformed URL: ${request.url}`);
  }
  const problem = requestHeadersProblem(request.headers);
  if (problem !== undefined) throw new NetError('failed', problem.message);
  let method = request.method.toUpperCase();
  let body = request.body;
  let headers = request.headers;
  for (let hop = 0; ; hop++) {
    const decision = await decide(policy, method, url, platform.resolve, body);
    if (!decision.allowed) {
      onDecision?.(method, url, { allowed: false, reason: decision.reason, rule: decision.rule });
      if (decision.failure === 'resolve') throw new NetError('resolve', decision.reason);
      throw new NetError('refused', `refused by the sandbox's network policy: ${policy?.describeRefusal?.(decision.reason, decision.rule) ?? decision.reason}`);
    }
    const started = performance.now();
    const hopUrl = url;
    const hopMethod = method;
    const report = (outcome: { status?: number; bytes?: number; error?: unknown }): void =>
      onDecision?.(hopMethod, hopUrl, {
        allowed: true,
        rule: decision.rule,
        ...(decision.exception === undefined ? {} : { exception: decision.exception }),
        ...(outcome.status === undefined ? {} : { status: outcome.status }),
        ...(outcome.bytes === undefined ? {} : { bytes: outcome.bytes }),
        durationMs: performance.now() - started,
        ...(outcome.error === undefined ? {} : { reason: outcome.error instanceof Error ? outcome.error.message : String(outcome.error) }),
      });
    // Secrets are added per hop, only for the hosts they are bound to (never carried along a redirect).
    const sent = withSecrets(headers, secretHeaders(policy?.secrets, url, { webSearch: policy?.webSearch }));
    let response: HopResponse;
    try {
      response = await platform.hop({ method, url: url.href, headers: sent, body, signal, addresses: decision.addresses });
    } catch (error) {
      report({ error });
      throw error;
    }
    const location = response.headers.find(([name]) => name.toLowerCase() === 'location')?.[1];
    if (request.followRedirects && REDIRECTS.has(response.status) && location !== undefined) {
      // The redirect's own body is not read: the hop is over with its status.
      void response.body?.cancel().catch(() => undefined);
      report({ status: response.status, bytes: 0 });
      if (hop >= request.maxRedirects) throw new NetError('too-many-redirects', `more than ${request.maxRedirects} redirects`);
      const next = new URL(location, url);
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      // Credentials do not follow a redirect to another host (as curl does).
      if (next.host !== url.host) headers = headers.filter(([name]) => !['authorization', 'cookie', 'proxy-authorization'].includes(name.toLowerCase()));
      url = next;
      continue;
    }
    let raw: Uint8Array;
    try {
      raw = await readCapped(response.body, responseBytes, () => new NetError('too-large', `the response is larger than networkResponseBytes (${responseBytes} bytes)`));
    } catch (error) {
      report({ status: response.status, error });
      throw error;
    }
    report({ status: response.status, bytes: raw.length });
    const content = scrub(policy?.secrets, raw);
    const responseHeaders = response.headers.map(([name, value]): [string, string] => [name, scrubText(policy?.secrets, value)]);
    return {
      head: { ok: true, status: response.status, statusText: response.statusText, url: url.href, headers: responseHeaders },
      body: content,
    };
  }
}

