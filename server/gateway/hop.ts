// The network gateway's hop endpoint: performs one HTTP hop for a browser sandbox host,
// after deciding it against the server's own policy (a second wall: a page's policy is only
// as trustworthy as the page). Redirects are not followed here; the host follows them,
// asking again for every hop.

import { Readable, Transform } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GATEWAY_PATH, decodeHop } from '../../src/protocol/gateway.js';
import { decide, type NetworkPolicy } from '../../src/host/network/policy.js';
import { nodeNetwork } from '../../src/host/network/node-network.js';
import type { ServiceContext } from '../service.js';
import { scrubStream } from '../../src/host/network/scrub-stream.js';
import { scrubText, secretHeaders, withSecrets } from '../../src/host/network/secrets.js';

export interface GatewayOptions {
  policy: NetworkPolicy;
  /** DNS servers for the floor's lookups instead of the system's resolver. */
  dnsServers?: string[];
  responseBytes: number;
  requestBytes: number;
  /** Called for every hop decided (the audit sink). */
  audit?: (entry: { method: string; url: string; allowed: boolean; reason?: string }) => void;
}

/** Passes at most `limit` bytes, then fails the stream (the page sees an aborted body). */
function capped(limit: number): Transform {
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      if (sent > limit) done(new Error(`the response is larger than the gateway's network.responseBytes (${limit} bytes)`));
      else done(null, chunk);
    },
  });
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
    const decision = await decide(options.policy, hop.method, url, network.resolve, body.length > 0 ? body : undefined);
    const entry = { method: hop.method, url: url.href, allowed: decision.allowed, ...(decision.allowed ? {} : { reason: decision.reason }) };
    options.audit?.(entry);
    request.log.info({ gateway: entry }, 'gateway decision');
    if (!decision.allowed) return refuse(403, `refused by the server's network policy: ${decision.reason}`);
    const controller = new AbortController();
    request.raw.on('close', () => controller.abort());
    try {
      // The server's secrets for bound hosts; the page only ever held placeholders.
      const headers = withSecrets(hop.headers, secretHeaders(options.policy.secrets, url, { webSearch: options.policy.webSearch }));
      const response = await network.hop({ method: hop.method, url: url.href, headers, body: body.length > 0 ? body : undefined, signal: controller.signal, addresses: decision.addresses });
      reply.code(200).headers({
        'Content-Type': 'application/octet-stream',
        'X-Airlock-Status': String(response.status),
        'X-Airlock-Status-Text': response.statusText.replace(/[^\x20-\x7e]/g, ''),
        'X-Airlock-Headers': JSON.stringify(response.headers.map(([name, value]) => [name, scrubText(options.policy.secrets, value)])),
      });
      const stream = response.body === undefined ? Readable.from([]) : Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
      return reply.send(stream.pipe(capped(options.responseBytes)).pipe(scrubStream(options.policy.secrets)));
    } catch (error) {
      return refuse(502, (error as Error).message);
    }
  });
}
