// The server's audit API on a real server (loopback, port 0): pages post batches (checked,
// all or nothing, duplicates skipped, only with the page token), the query API pages through
// them by session, type and time, the gateway's decisions are recorded, and the log file
// verifies.

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeHop, GATEWAY_PATH } from '../../src/protocol/gateway.js';
import { AUDIT_EVENTS_PATH, AUDIT_POST_PATH } from '../../src/protocol/audit/api.js';
import type { AuditEvent } from '../../src/protocol/audit/schema.js';
import { PAGE_TOKEN_HEADER } from '../../src/protocol/server.js';
import { verifyAuditLog } from '../../src/host/audit/audit-log.js';
import { startServer, type RunningServer } from '../main.js';
import { scratchWebRoot, testServerConfig } from '../test-server.js';

let dir: string;
let server: RunningServer;
let token: string;

function event(sessionId: string, seq: number, extra: Partial<AuditEvent> & { type?: string } = {}): Record<string, unknown> {
  return { v: 1, type: 'run.ended', sessionId, seq, time: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(), source: 'host', runId: seq, exitCode: 0, durationMs: 2, errorClass: null, outputTruncated: false, ...extra };
}

async function post(events: unknown[], headers: Record<string, string> = { [PAGE_TOKEN_HEADER]: token }): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL(AUDIT_POST_PATH, server.url), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ events }) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function query(params: string): Promise<{ status: number; body: { events: Array<{ n: number; event: AuditEvent }>; next: number | null; message?: string } }> {
  const response = await fetch(new URL(`${AUDIT_EVENTS_PATH}?${params}`, server.url), { headers: { [PAGE_TOKEN_HEADER]: token } });
  return { status: response.status, body: (await response.json()) as never };
}

beforeAll(async () => {
  dir = await scratchWebRoot('airlock-audit-server-');
  server = await startServer(testServerConfig(dir, { audit: { file: join(dir, 'audit.jsonl') } }));
  token = server.tokens.mint();
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('POST /api/audit', () => {
  it('keeps a batch, and skips what it already has', async () => {
    expect(await post([event('sb-a', 0), event('sb-a', 1), { v: 1, type: 'tool.refused', sessionId: 'sb-b', seq: 0, time: '2026-01-01T00:00:00.000Z', source: 'sandbox-reported', runId: 1, tool: 'curl', count: 5 }])).toEqual({ status: 200, body: { accepted: 3, duplicates: 0 } });
    expect(await post([event('sb-a', 1), event('sb-a', 2)])).toEqual({ status: 200, body: { accepted: 1, duplicates: 1 } });
  });

  it('refuses a batch with a bad event, keeping none of it, naming the event', async () => {
    const bad = await post([event('sb-c', 0), { ...event('sb-c', 1), contents: 'file data' }]);
    expect(bad).toEqual({ status: 400, body: { message: 'event 1: run.ended: unknown field contents' } });
    expect((await post([event('sb-c', 0, { source: 'server' })])).body.message).toBe('event 0: a page may not send server events');
    expect((await post(new Array(1001).fill(event('sb-c', 0)))).body.message).toBe('a batch holds at most 1000 events (got 1001)');
    expect((await query('session=sb-c')).body.events).toEqual([]);
  });

  it('takes events only from pages this server served', async () => {
    expect((await post([event('sb-d', 0)], {})).status).toBe(403);
    expect((await post([event('sb-d', 0)], { [PAGE_TOKEN_HEADER]: token, origin: 'https://evil.example' })).status).toBe(403);
    expect((await fetch(new URL(AUDIT_EVENTS_PATH, server.url))).status).toBe(403);
  });
});

describe('GET /api/audit/events', () => {
  it('selects by session, type and time, in pages', async () => {
    const a = await query('session=sb-a');
    expect(a.body.events.map((e) => [e.event.sessionId, e.event.seq])).toEqual([
      ['sb-a', 0],
      ['sb-a', 1],
      ['sb-a', 2],
    ]);
    expect((await query('type=tool.refused')).body.events.map((e) => e.event)).toMatchObject([{ sessionId: 'sb-b', tool: 'curl', count: 5, source: 'sandbox-reported' }]);
    expect((await query('type=run.*&since=2026-01-01T00:00:01Z&until=2026-01-01T00:00:02Z')).body.events.map((e) => e.event.seq)).toEqual([1]);
    const first = await query('limit=2');
    expect(first.body.events).toHaveLength(2);
    expect(first.body.next).toBe(first.body.events[1]?.n);
    const second = await query(`limit=2&after=${first.body.next}`);
    expect(second.body.events[0]?.n).toBeGreaterThan(first.body.next as number);
    expect((await query('limit=5000')).body.message).toBe('limit must be 1…1000');
    expect((await query('since=soon')).body.message).toBe('since must be an ISO time or a duration like 10m');
  });
});

describe("the gateway's decisions", () => {
  it('are recorded as network.decision events of the server', async () => {
    const refused = await fetch(new URL(GATEWAY_PATH, server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', [PAGE_TOKEN_HEADER]: token },
      body: encodeHop({ method: 'GET', url: 'http://user:secret@refused.invalid/x', headers: [] }, undefined) as Uint8Array<ArrayBuffer>,
    });
    expect(refused.status).toBe(403);
    const decisions = (await query('type=network.decision')).body.events.map((e) => e.event);
    expect(decisions).toMatchObject([{ source: 'server', enforcer: 'gateway', method: 'GET', host: 'refused.invalid', url: 'http://refused.invalid/x', allowed: false }]);
    expect(JSON.stringify(decisions)).not.toContain('secret');
  });
});

describe('the log file', () => {
  it('verifies after the server closes', async () => {
    await server.close();
    const report = await verifyAuditLog(join(dir, 'audit.jsonl'), { schema: true });
    expect(report.problem).toBeUndefined();
    expect(report.lines).toBe(1 + 4 + 1);
    server = await startServer(testServerConfig(dir, { audit: { file: join(dir, 'audit.jsonl') } }));
  });
});
