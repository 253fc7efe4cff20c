// A secret the server's gateway injects never reaches the audit trail or the server's logs:
// a real server (loopback, port 0) injects a configured secret into an allowed hop to a
// loopback upstream (an exact host:port exception) that echoes it back, and neither the
// events it stores (the query API, the log file, its checkpoints) nor any log line it
// writes, at the most verbose level, holds the secret in any form.

import fs from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUDIT_EVENTS_PATH, AUDIT_POST_PATH } from '../../src/protocol/audit/api.js';
import type { AuditEvent } from '../../src/protocol/audit/schema.js';
import { GATEWAY_PATH, encodeHop } from '../../src/protocol/gateway.js';
import { PAGE_TOKEN_HEADER } from '../../src/protocol/server.js';
import { verifyAuditLog } from '../../src/host/audit/audit-log.js';
import { startServer, type RunningServer } from '../main.js';
import { scratchWebRoot, testServerConfig } from '../test-server.js';

const SECRET = 'sk_live_audit-7f3e9c2a41d8b650';
const SECRET_ENV = 'AIRLOCK_TEST_AUDIT_UPSTREAM_TOKEN';
/** Every form of the secret that would give it away. */
const FORMS = [SECRET, Buffer.from(SECRET).toString('base64'), Buffer.from(`Bearer ${SECRET}`).toString('base64')];

let dir: string;
let upstream: Server;
let upstreamPort: number;
let server: RunningServer;
/** What the upstream was sent as Authorization, request by request. */
const received: string[] = [];
/** Everything the server process wrote to stdout and stderr while the test ran (its logs). */
const written: string[] = [];

function capture(fd: unknown, data: unknown): void {
  if (fd !== 1 && fd !== 2) return;
  written.push(typeof data === 'string' ? data : Buffer.from(data as Uint8Array).toString());
}

beforeAll(async () => {
  // pino (Fastify's logger) writes with fs.write(Sync) on fd 1; console and others through
  // process.stdout / stderr. Every path is recorded and passed on.
  // Overloaded signatures: wrapped as plain functions of their arguments.
  type Loose = (...args: unknown[]) => unknown;
  const wrap = (original: Loose, fdOf: (args: unknown[]) => unknown, dataAt: number): Loose => (...args) => {
    capture(fdOf(args), args[dataAt]);
    return original(...args);
  };
  // (The originals are taken before spyOn replaces them.)
  const writeSync = wrap(fs.writeSync.bind(fs) as Loose, (args) => args[0], 1);
  const write = wrap(fs.write.bind(fs) as Loose, (args) => args[0], 1);
  vi.spyOn(fs, 'writeSync').mockImplementation(writeSync as typeof fs.writeSync);
  vi.spyOn(fs, 'write').mockImplementation(write as typeof fs.write);
  for (const [stream, fd] of [[process.stdout, 1], [process.stderr, 2]] as const) {
    const streamWrite = wrap(stream.write.bind(stream) as Loose, () => fd, 0);
    vi.spyOn(stream, 'write').mockImplementation(streamWrite as typeof stream.write);
  }

  dir = await scratchWebRoot('airlock-audit-secrets-');
  // Echoes the credential it got, in a header and in the body (the gateway scrubs both).
  upstream = createServer((req, res) => {
    received.push(req.headers.authorization ?? '');
    res.writeHead(200, { 'X-Echo': req.headers.authorization ?? '' }).end(`auth: ${req.headers.authorization ?? ''}`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
  process.env[SECRET_ENV] = SECRET;
  server = await startServer(
    testServerConfig(dir, {
      log: { level: 'trace' },
      audit: { file: join(dir, 'audit.jsonl') },
      network: {
        allowedHosts: [`127.0.0.1:${upstreamPort}`],
        secrets: [{ name: 'UPSTREAM_TOKEN', env: SECRET_ENV, hosts: [`127.0.0.1:${upstreamPort}`], header: 'Authorization', template: 'Bearer ${UPSTREAM_TOKEN}' }],
      },
    }),
  );
});

afterAll(async () => {
  vi.restoreAllMocks();
  delete process.env[SECRET_ENV];
  await server?.close();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

async function hop(url: string, headers: Record<string, string>, hopHeaders: Array<[string, string]> = []): Promise<{ status: number; body: string; echoed: string }> {
  const response = await fetch(new URL(GATEWAY_PATH, server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', ...headers },
    body: encodeHop({ method: 'GET', url, headers: hopHeaders }, undefined) as Uint8Array<ArrayBuffer>,
  });
  return { status: response.status, body: await response.text(), echoed: response.headers.get('x-airlock-headers') ?? '' };
}

function expectNoSecret(text: string, where: string): void {
  for (const form of FORMS) expect(text.includes(form), `${where} holds the secret (${form === SECRET ? 'as is' : 'in base64'})`).toBe(false);
}

describe('a secret the gateway injects', () => {
  it('reaches the upstream, and no stored event and no log line', async () => {
    const page = { [PAGE_TOKEN_HEADER]: server.tokens.mint() };
    const base = `http://127.0.0.1:${upstreamPort}`;
    // Allowed: the secret is injected (over whatever the page sent), its echo scrubbed.
    const allowed = await hop(`${base}/v1/things?placeholder=airlock-secret:UPSTREAM_TOKEN`, page, [['Authorization', 'airlock-secret:UPSTREAM_TOKEN']]);
    expect(allowed.status).toBe(200);
    expect(received).toEqual([`Bearer ${SECRET}`]);
    expectNoSecret(allowed.body + allowed.echoed, 'the answer to the page');
    // Refused: another loopback port (no exception for it), and a page from another site.
    expect((await hop(`http://127.0.0.1:${upstreamPort + 1}/`, page)).status).toBe(403);
    expect((await hop(`${base}/`, { ...page, Origin: 'https://evil.example' })).status).toBe(403);
    // The page's own events (shipped from its sandboxes) go through the same store.
    const shipped = await fetch(new URL(AUDIT_POST_PATH, server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...page },
      body: JSON.stringify({ events: [{ v: 1, type: 'run.ended', sessionId: 'sb-0123456789abcdef', seq: 0, time: new Date().toISOString(), source: 'host', runId: 1, exitCode: 0, durationMs: 1, errorClass: null, outputTruncated: false }] }),
    });
    expect(shipped.status).toBe(200);

    const stored = (await (await fetch(new URL(`${AUDIT_EVENTS_PATH}?limit=1000`, server.url), { headers: page })).json()) as { events: Array<{ event: AuditEvent }> };
    const decisions = stored.events.map((entry) => entry.event).filter((event) => event.type === 'network.decision');
    expect(decisions).toMatchObject([
      { enforcer: 'gateway', allowed: true, host: '127.0.0.1' },
      { enforcer: 'gateway', allowed: false },
    ]);
    expectNoSecret(JSON.stringify(stored), 'the query API');

    await server.close();
    const files = await readdir(dir);
    expect(files).toContain('audit.jsonl');
    for (const file of files.filter((name) => name.startsWith('audit.jsonl'))) expectNoSecret(await readFile(join(dir, file), 'utf8'), file);
    expect((await verifyAuditLog(join(dir, 'audit.jsonl'), { schema: true })).problem).toBeUndefined();

    const logs = written.join('');
    // The capture saw the server's log lines (the gateway logs each decision; the guard its refusal).
    expect(logs).toContain(`"url":"${base}/v1/things?placeholder=airlock-secret:UPSTREAM_TOKEN"`);
    expect(logs).toContain('not from this server');
    expectNoSecret(logs, 'the server log');
  });
});
