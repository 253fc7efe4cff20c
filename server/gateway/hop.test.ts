// The server's gateway (POST /api/net/hop) as issue 20 attacked it: loopback through
// IPv4-mapped IPv6 under an open allowlist (a tripwire that must see no connection), and a
// request from another website (no page token, a foreign Origin / Sec-Fetch-Site, a
// rebound Host name).

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

interface Answer {
  status: number;
  body: string;
}

function hop(base: string, url: string, headers: Record<string, string> = {}, hopHeaders: Array<[string, string]> = []): Promise<Answer & { upstream?: string }> {
  const body = encodeHop({ method: 'GET', url, headers: hopHeaders }, undefined);
  return new Promise((resolve, reject) => {
    const req = request(new URL(GATEWAY_PATH, base), { method: 'POST', headers: { 'Content-Length': body.length, 'Content-Type': 'application/octet-stream', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), upstream: res.headers['x-airlock-status'] === undefined ? undefined : `${res.headers['x-airlock-status']} ${res.headers['x-airlock-headers']}` }));
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

  beforeAll(async () => {
    wire = await startTripwire('127.0.0.1');
    webRoot = mkdtempSync(join(tmpdir(), 'airlock-web-'));
    service = createServer((req, res) => res.writeHead(201, { 'X-Echo': req.headers['x-probe'] ?? '' }).end(`served ${req.method} ${req.url}`));
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    servicePort = (service.address() as AddressInfo).port;
    server = await startServer(serverConfig({ server: { port: 0, web: webRoot }, network: { allowedHosts: ['*:*', `127.0.0.1:${servicePort}`] }, log: { level: 'silent' } }));
  });

  afterAll(async () => {
    await server?.close();
    await wire?.close();
    service?.close();
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
});
