// The network gateway's hop endpoint: performs one HTTP hop for a browser sandbox host,
// after deciding it against the server's own policy (a second wall: a page's policy is only
// as trustworthy as the page). Redirects are not followed here; the host follows them,
// asking again for every hop.

import { Readable, Transform } from 'node:stream';
import { describeReport, type DecisionReport } from '../../src/host/network/decision-report.js';
import type { FastifyInstance } from 'fastify';
import { GATEWAY_PATH, decodeHop } from '../../src/protocol/gateway.js';
import { decide, type NetworkPolicy } from '../../src/host/network/policy.js';
import { nodeNetwork } from '../../src/host/network/node-network.js';
import type { ServiceContext } from '../service.js';
import { scrubStream } from '../../src/host/network/scrub-stream.js';
import { scrubText, secretHeaders, withSecrets } from '../../src/host/network/secrets.js';
import { auditUrl } from '../../src/host/audit/session-audit.js';
import { requestHeadersProblem } from '../../src/host/network/request-headers.js';

export interface GatewayOptions {
  policy: NetworkPolicy;
  /** DNS servers for the floor's lookups instead of the system's resolver. */
  dnsServers?: string[];
  responseBytes: number;
  requestBytes: number;
  /** Longest a hop may take upstream, from the request to the end of the response body (ms). */
  hopTimeoutMs: number;
  /** Called for every hop decided (the audit sink): a refusal at once, an allowed hop when it is over. */
  audit?: (method: string, url: URL, report: DecisionReport) => void;
}

/** Passes at most `limit` bytes, then fails the stream (the page sees an aborted body); `bytes()` tells how many passed. */
function capped(limit: number): Transform & { bytes(): number } {
  let sent = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      if (sent > limit) done(new Error(`the response is larger than the gateway's network.responseBytes (${limit} bytes)`));
      else done(null, chunk);
    },
  });
  return Object.assign(stream, { bytes: () => Math.min(sent, limit) });
}

/** The error a hop's upstream time limit aborts it with. */
class HopTimeoutError extends Error {
  override name = 'TimeoutError';
}

export function registerHop(app: FastifyInstance, context: ServiceContext, options: GatewayOptions): void {
  const network = nodeNetwork({ dnsServers: options.dnsServers });
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: options.requestBytes }, (_request, body, done) => done(null, body));
  app.post(GATEWAY_PATH, { onRequest: context.pageOnly }, async (request, reply) => {
    const refuse = (status: number, message: string) => reply.code(status).send({ message });
    if (!Buffer.isBuffer(request.body)) return refuse(415, 'the gateway wants Content-Type: application/octet-stream');
    let hop;
    let body;
    try {
      ({ hop, body } = decodeHop(request.body));
    } catch (error) {
      return refuse(400, (error as Error).message);
    }
    let url: URL;
    try {
      url = new URL(hop.url);
    } catch {
      return refuse(400, `malformed URL: ${JSON.stringify(hop.url.slice(0, 200))}`);
    }
    // The host checked them; a page is not trusted to have asked its host.
    if (!hop.headers.every((h) => Array.isArray(h) && h.length === 2 && typeof h[0] === 'string' && typeof h[1] === 'string')) return refuse(400, 'malformed gateway request: headers must be [name, value] pairs of strings');
    const problem = requestHeadersProblem(hop.headers);
    if (problem !== undefined) return refuse(problem.tooLarge ? 431 : 400, problem.message);
    const decision = await decide(options.policy, hop.method, url, network.resolve, body.length > 0 ? body : undefined);
    const shown = auditUrl(url);
    const report = (entry: DecisionReport): void => {
      options.audit?.(hop.method, url, entry);
      request.log.info({ gateway: { method: hop.method, url: shown, ...entry } }, `gateway: ${describeReport(hop.method, shown, entry)}`);
    };
    if (!decision.allowed) {
      report({ allowed: false, reason: decision.reason, rule: decision.rule });
      return refuse(403, `refused by the server's network policy: ${decision.reason}`);
    }
    const started = performance.now();
    const allowed = { allowed: true, rule: decision.rule, ...(decision.exception === undefined ? {} : { exception: decision.exception }) };
    const done = (outcome: { status?: number; bytes?: number; error?: Error }): void =>
      report({ ...allowed, ...(outcome.status === undefined ? {} : { status: outcome.status }), ...(outcome.bytes === undefined ? {} : { bytes: outcome.bytes }), durationMs: performance.now() - started, ...(outcome.error === undefined ? {} : { reason: outcome.error.message }) });
    // The hop ends when the page goes away, or at the upstream time limit (a slow upstream
    // would otherwise hold the request, and its connection, for as long as it likes).
    const controller = new AbortController();
    const limit = `no answer from ${url.host} within the gateway's network.hopTimeoutMs (${options.hopTimeoutMs} ms)`;
    const timer = setTimeout(() => controller.abort(new HopTimeoutError(limit)), options.hopTimeoutMs);
    // (The request's own 'close' comes once its body is read; the reply's, when the page goes away or the answer is done.)
    reply.raw.once('close', () => controller.abort());
    let response;
    try {
      // The server's secrets for bound hosts; the page only ever held placeholders.
      const headers = withSecrets(hop.headers, secretHeaders(options.policy.secrets, url, { webSearch: options.policy.webSearch }));
      response = await network.hop({ method: hop.method, url: url.href, headers, body: body.length > 0 ? body : undefined, signal: controller.signal, addresses: decision.addresses });
    } catch (error) {
      clearTimeout(timer);
      const timedOut = controller.signal.reason instanceof HopTimeoutError;
      done({ error: timedOut ? (controller.signal.reason as Error) : (error as Error) });
      return refuse(timedOut ? 504 : 502, timedOut ? limit : (error as Error).message);
    }
    reply.code(200).headers({
      'Content-Type': 'application/octet-stream',
      'X-Airlock-Status': String(response.status),
      'X-Airlock-Status-Text': response.statusText.replace(/[^\x20-\x7e]/g, ''),
      'X-Airlock-Headers': JSON.stringify(response.headers.map(([name, value]) => [name, scrubText(options.policy.secrets, value)])),
    });
    const stream = response.body === undefined ? Readable.from([]) : Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
    const counted = capped(options.responseBytes);
    const out = stream.pipe(counted).pipe(scrubStream(options.policy.secrets));
    // `pipe` does not pass errors along: a failed upstream or the cap ends the page's body.
    let failure: Error | undefined;
    for (const source of [stream, counted]) source.once('error', (error: Error) => ((failure ??= controller.signal.reason instanceof HopTimeoutError ? (controller.signal.reason as Error) : error), out.destroy(failure)));
    const status = response.status;
    out.once('close', () => {
      clearTimeout(timer);
      done({ status, bytes: counted.bytes(), ...(failure === undefined ? {} : { error: failure }) });
    });
    return reply.send(out);
  });
}
