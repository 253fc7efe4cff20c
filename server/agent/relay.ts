// The provider relay: the one place a model provider's key is used. The agent's SDK is
// pointed at `<relay>/<provider>` with a per-run token for a key; the relay checks that
// token, puts the real key in its place and forwards the request (streamed answer and all)
// to the provider. The keys are read from the host's environment by the relay alone: they
// are never in the sandbox (which cannot reach the relay either — loopback is below the
// egress floor), in the agent's SDK clients, in events or in logs.

import { randomBytes, createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { AGENT_LIMITS } from '../../src/protocol/limits.js';
import type { ProxyDecision } from '../egress-proxy/proxy.js';
import { PROVIDERS, PROVIDER_NAMES, type ProviderName } from './model.js';

export interface RelayProvider {
  /** The provider's API base (default: the real one, model.ts PROVIDERS). */
  upstream?: string;
  /** The key; default: the host environment variable PROVIDERS[name].keyEnv. */
  key?: string;
}

/** One request the relay carried to a provider, for the audit trail, in the egress proxy's shape: no headers, no bodies, never the key. */
export type RelayDecision = Omit<ProxyDecision, 'enforcer' | 'exception'> & { enforcer: 'relay' };

export interface ProviderRelay {
  /** `http://127.0.0.1:PORT`; a provider's base URL is `${url}/${provider}`. */
  url: string;
  /** What the SDK sends as its API key (only this relay accepts it; it opens nothing else). */
  token: string;
  close(): Promise<void>;
}

// Headers that describe one connection, not the request, and the caller's credentials.
const DROPPED = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'authorization', 'x-api-key', 'content-length']);

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

function given(req: IncomingMessage): string {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7);
  const key = req.headers['x-api-key'];
  return typeof key === 'string' ? key : '';
}

function fail(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'airlock_relay', message } }));
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > AGENT_LIMITS.relayRequestBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function startProviderRelay(providers: Partial<Record<ProviderName, RelayProvider>> = {}, env: NodeJS.ProcessEnv = process.env, onDecision?: (decision: RelayDecision) => void): Promise<ProviderRelay> {
  const token = `airlock-relay-${randomBytes(24).toString('hex')}`;
  const expected = digest(token);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!timingSafeEqual(digest(given(req)), expected)) return fail(res, 401, 'the provider relay takes only the token of the run that started it');
    const url = new URL(req.url ?? '/', 'http://relay');
    const name = url.pathname.split('/')[1] ?? '';
    if (!(PROVIDER_NAMES as readonly string[]).includes(name)) return fail(res, 404, `no provider ${JSON.stringify(name)} (have: ${PROVIDER_NAMES.join(', ')})`);
    const provider = name as ProviderName;
    const spec = PROVIDERS[provider];
    const key = providers[provider]?.key ?? env[spec.keyEnv];
    if (key === undefined || key === '') return fail(res, 502, `no key for ${provider}: set ${spec.keyEnv} in the environment of the process that runs the agent (the sandbox never sees it)`);
    const body = await readBody(req);
    if (body === undefined) return fail(res, 413, `request body over AGENT_LIMITS.relayRequestBytes (${AGENT_LIMITS.relayRequestBytes} bytes)`);
    const upstream = (providers[provider]?.upstream ?? spec.upstream).replace(/\/+$/, '');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (!DROPPED.has(k) && typeof v === 'string') headers[k] = v;
    if (spec.wire === 'anthropic') headers['x-api-key'] = key;
    else headers.authorization = `Bearer ${key}`;
    const target = `${upstream}${url.pathname.slice(name.length + 1)}${url.search}`;
    const method = req.method ?? 'POST';
    const started = performance.now();
    const report = (outcome: { status?: number; bytes?: number; reason?: string }): void =>
      onDecision?.({
        enforcer: 'relay', method, url: target, host: new URL(target).hostname, allowed: outcome.reason === undefined, reason: outcome.reason ?? null, rule: `provider:${provider}`,
        ...(outcome.status === undefined ? {} : { status: outcome.status }), ...(outcome.bytes === undefined ? {} : { bytes: outcome.bytes }), durationMs: performance.now() - started,
      });
    let bytes = 0;
    try {
      const answer = await request(target, { method: method as 'POST', headers, body, headersTimeout: AGENT_LIMITS.timeBudgetMs, bodyTimeout: AGENT_LIMITS.timeBudgetMs });
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !DROPPED.has(k)) out[k] = v;
      res.writeHead(answer.statusCode, out);
      for await (const chunk of answer.body) {
        bytes += (chunk as Buffer).length;
        res.write(chunk);
      }
      res.end();
      report({ status: answer.statusCode, bytes });
    } catch (error) {
      report({ bytes, reason: `${provider} at ${upstream}: ${(error as Error).message}` });
      if (res.headersSent) res.destroy();
      else fail(res, 502, `${provider} at ${upstream}: ${(error as Error).message}`);
    }
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => (res.headersSent ? res.destroy() : fail(res, 500, (error as Error).message)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
