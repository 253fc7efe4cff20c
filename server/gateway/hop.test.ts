// The server's gateway (POST /api/net/hop) as issue 20 attacked it: loopback through
// IPv4-mapped IPv6 under an open allowlist (a tripwire that must see no connection), and a
// request from another website (no page token, a foreign Origin / Sec-Fetch-Site, a
// rebound Host name). And its bad input (issue 12): a path no rule can read, huge headers,
// slow upstreams (network.hopTimeoutMs), a sandbox's credentials on a cross-host redirect;
// every decision in the audit log with its rule, exception, status, bytes and time.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_PATH, encodeHop } from '../../src/protocol/gateway.js';
import { startTripwire, type Tripwire } from '../../tests/network/tripwire.js';
import { serverConfig, startServer, type RunningServer } from '../main.js';
import { PAGE_TOKEN_HEADER } from '../../src/protocol/server.js';
import { AUDIT_EVENTS_PATH } from '../../src/protocol/audit/api.js';
import type { AuditEvent } from '../../src/protocol/audit/schema.js';
import { gatewayNetwork } from '../../src/host/network/gateway-network.js';
import { performRequest } from '../../src/host/network/perform.js';

interface Answer {
  status: number;
  body: string;
}

function hop(base: string, url: string, headers: Record<string, string> = {}, hopHeaders: Array<[string, string]> = []): Promise<Answer & { upstream?: string; error?: string }> {
  const body = encodeHop({ method: 'GET', url, headers: hopHeaders }, undefined);
  return new Promise((resolve, reject) => {
    const req = request(new URL(GATEWAY_PATH, base), { method: 'POST', headers: { 'Content-Length': body.length, 'Content-Type': 'application/octet-stream', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const done = (error?: Error): void => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), upstream: res.headers['x-airlock-status'] === undefined ? undefined : `${res.headers['x-airlock-status']} ${res.headers['x-airlock-headers']}`, ...(error === undefined ? {} : { error: error.message }) });
      res.on('end', () => done());
      // A body the gateway cut (a cap, the time limit) ends in an aborted response.
      res.on('error', (error) => done(error));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the server gateway', () => {
  let wire: Tripwire;
  let server: RunningServer;
  const page = () => ({ [PAGE_TOKEN_HEADER]: server.tokens.mint() });
  let webRoot: string;
  let service: Server;
  let servicePort = 0;
  let other: Server;
  let otherPort = 0;
  let slow: Server;
  let slowPort = 0;

  beforeAll(async () => {
    wire = await startTripwire('127.0.0.1');
    webRoot = mkdtempSync(join(tmpdir(), 'airlock-web-'));
    service = createServer((req, res) => {
      if (req.url === '/go-other') return void res.writeHead(302, { Location: `http://127.0.0.1:${otherPort}/landed` }).end();
      res.writeHead(201, { 'X-Echo': req.headers['x-probe'] ?? '' }).end(`served ${req.method} ${req.url}`);
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    servicePort = (service.address() as AddressInfo).port;
    // The far side of a redirect: another host (port) that tells what credentials reached it.
    other = createServer((req, res) => res.end(JSON.stringify({ authorization: req.headers.authorization ?? null, cookie: req.headers.cookie ?? null, keep: req.headers['x-keep'] ?? null })));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherPort = (other.address() as AddressInfo).port;
    // A slowloris upstream: silent on /silent; on /drip its head, then a byte every 100 ms for ever.
    slow = createServer((req, res) => {
      if (req.url === '/silent') return;
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 100);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    slowPort = (slow.address() as AddressInfo).port;
    server = await startServer(
      serverConfig({
        server: { port: 0, web: webRoot },
        network: { allowedHosts: ['*:*', `127.0.0.1:${servicePort}`, `127.0.0.1:${otherPort}`, `127.0.0.1:${slowPort}`], githubProfile: 'read', hopTimeoutMs: 1500 },
        log: { level: 'silent' },
      }),
    );
  });

  afterAll(async () => {
    await server?.close();
    await wire?.close();
    service?.close();
    other?.close();
    slow?.closeAllConnections();
    slow?.close();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it('performs a hop the policy allows for a page with its token', async () => {
    const answer = await hop(server.url, `http://127.0.0.1:${servicePort}/path?q=1`, page(), [['X-Probe', 'yes']]);
    expect(answer).toMatchObject({ status: 200, body: 'served GET /path?q=1' });
    expect(answer.upstream).toMatch(/^201 .*\["x-echo","yes"\]/);
  });

  it('refuses loopback in IPv4-mapped and other spellings under an open allowlist', async () => {
    for (const host of ['[::ffff:127.0.0.1]', '[0:0:0:0:0:ffff:7f00:1]', '[::ffff:0.0.0.0]', '127.1', '0x7f000001', 'localhost', '[::1]']) {
      const answer = await hop(server.url, `http://${host}:${wire.port}/`, { ...page(), Origin: server.url.replace(/\/$/, ''), 'Sec-Fetch-Site': 'same-origin' });
      expect(answer.status, host).toBe(403);
      expect(answer.body, host).toMatch(/refused by the server's network policy: .* (loopback|unspecified)/);
    }
    expect(wire.connections).toBe(0);
  });

  it('serves only its own pages: another origin, a cross-site fetch or a rebound Host name is refused', async () => {
    const target = `http://[::ffff:127.0.0.1]:${wire.port}/`;
    expect(await hop(server.url, target, { ...page(), Origin: 'https://evil.example' })).toMatchObject({ status: 403, body: expect.stringContaining('Origin https://evil.example') });
    expect(await hop(server.url, target, { ...page(), 'Sec-Fetch-Site': 'cross-site' })).toMatchObject({ status: 403, body: expect.stringContaining('Sec-Fetch-Site is cross-site') });
    expect(await hop(server.url, target, { ...page(), Host: 'evil.example' })).toMatchObject({ status: 403, body: expect.stringContaining('evil.example\\" is not this server') });
    expect(await hop(server.url, target, {})).toMatchObject({ status: 403, body: expect.stringContaining('no valid page token') });
    const forged = `${server.tokens.mint().split('.')[0]}.${'A'.repeat(43)}`;
    expect(await hop(server.url, target, { [PAGE_TOKEN_HEADER]: forged })).toMatchObject({ status: 403, body: expect.stringContaining('no valid page token') });
    expect(wire.connections).toBe(0);
  });

  /** The newest network.decision event of the server whose URL ends with `suffix`. */
  const lastDecision = async (suffix: string): Promise<AuditEvent | undefined> => {
    const response = await fetch(new URL(`${AUDIT_EVENTS_PATH}?type=network.decision&limit=1000`, server.url), { headers: page() });
    const events = ((await response.json()) as { events: Array<{ event: AuditEvent }> }).events.map((e) => e.event);
    return events.reverse().find((e) => e.type === 'network.decision' && e.url.endsWith(suffix));
  };

  it('records the rule, the loopback exception, the status, bytes and time of an allowed hop', async () => {
    const answer = await hop(server.url, `http://127.0.0.1:${servicePort}/audited`, page());
    expect(answer.status).toBe(200);
    const event = await lastDecision('/audited');
    expect(event).toMatchObject({ enforcer: 'gateway', allowed: true, reason: null, rule: `allowedHosts:127.0.0.1:${servicePort}`, exception: `127.0.0.1:${servicePort}`, status: 201, bytes: Buffer.byteLength('served GET /audited') });
    expect(event?.type === 'network.decision' && event.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('refuses a path no GitHub profile rule can read (not valid percent-encoding), naming it', async () => {
    const answer = await hop(server.url, 'https://api.github.com/repos/o/r/%zz', page());
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('the path \\"/repos/o/r/%zz\\" is not valid percent-encoding; refused under the read GitHub profile');
  });

  it('refuses huge request headers, and headers that would inject, naming the limit', async () => {
    const huge = await hop(server.url, `http://127.0.0.1:${servicePort}/`, page(), [['X-Huge', 'h'.repeat(40 * 1024)]]);
    expect(huge.status).toBe(431);
    expect(huge.body).toContain('the request headers are 40970 bytes, more than the limit of 32768 bytes');
    const injected = await hop(server.url, `http://127.0.0.1:${servicePort}/`, page(), [['X-A', 'b\r\nX-Injected: 1']]);
    expect(injected.status).toBe(400);
    expect(injected.body).toContain('a value must not hold CR, LF or NUL');
  });

  it('ends a slow upstream at network.hopTimeoutMs: no answer is a 504, a dripping body is cut', async () => {
    const silent = await hop(server.url, `http://127.0.0.1:${slowPort}/silent`, page());
    expect(silent.status).toBe(504);
    expect(silent.body).toContain(`no answer from 127.0.0.1:${slowPort} within the gateway's network.hopTimeoutMs (1500 ms)`);
    // Never idle, never done: only the total limit ends it.
    const dripping = await hop(server.url, `http://127.0.0.1:${slowPort}/drip`, page());
    expect(dripping.status).toBe(200);
    expect(dripping.error).toBeDefined();
    expect(await lastDecision('/drip')).toMatchObject({ allowed: true, status: 200, reason: expect.stringContaining('network.hopTimeoutMs (1500 ms)') });
  });

  it("drops the sandbox's own Authorization and Cookie on a redirect to another host (a browser host's hops)", async () => {
    const network = gatewayNetwork(server.url, page());
    const policy = { allowedHosts: [`127.0.0.1:${servicePort}`, `127.0.0.1:${otherPort}`] };
    const request = { method: 'GET', url: `http://127.0.0.1:${otherPort}/`, headers: [['Authorization', 'Bearer mine'], ['Cookie', 'session=mine'], ['X-Keep', 'kept']] as Array<[string, string]>, followRedirects: true, maxRedirects: 5, timeoutMs: 10_000 };
    const seen = (performed: { body: Uint8Array }): unknown => JSON.parse(new TextDecoder().decode(performed.body));
    // Sent to that host itself, they arrive; through a redirect from another host (port), only the rest does.
    expect(seen(await performRequest(request, policy, 1 << 20, network))).toEqual({ authorization: 'Bearer mine', cookie: 'session=mine', keep: 'kept' });
    const redirected = await performRequest({ ...request, url: `http://127.0.0.1:${servicePort}/go-other` }, policy, 1 << 20, network);
    expect(redirected.head).toMatchObject({ ok: true, status: 200, url: `http://127.0.0.1:${otherPort}/landed` });
    expect(seen(redirected)).toEqual({ authorization: null, cookie: null, keep: 'kept' });
  });
});
