// The page's audit outbox on fake-indexeddb: events wait while the server is unreachable,
// a full outbox counts what it cannot keep, and the count reaches the server as one
// `audit.dropped` event once there is room again — never silently.

import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditEventOf } from '../../protocol/audit/schema.js';
import { validateAuditEvent } from '../../protocol/audit/validate.js';
import { AuditOutbox, OUTBOX_DB } from './browser-outbox.js';

/** A stand-in for the server: down until `up` is set; keeps every batch it accepts. */
function fakeServer() {
  const server = { up: false, received: [] as AuditEvent[], attempts: 0 };
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    server.attempts++;
    if (!server.up) throw new TypeError('fetch failed');
    const { events } = JSON.parse(String(init?.body)) as { events: AuditEvent[] };
    server.received.push(...events);
    return new Response(JSON.stringify({ accepted: events.length, duplicates: 0 }), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { server, fetch: fetch as typeof globalThis.fetch };
}

function refusal(seq: number, count?: number): AuditEvent {
  return { v: 1, type: 'write.refused', sessionId: 'sb-0123456789abcdef', seq, time: new Date().toISOString(), source: 'sandbox-reported', runId: 1, errno: 'EROFS', path: '/etc/x', limit: null, ...(count === undefined ? {} : { count }) };
}

let outbox: AuditOutbox | undefined;
afterEach(async () => {
  outbox?.close();
  outbox = undefined;
  await new Promise<void>((resolve) => {
    const request = indexedDB.deleteDatabase(OUTBOX_DB);
    request.onsuccess = () => resolve();
    request.onerror = () => resolve();
  });
});

describe('the browser outbox', () => {
  it('keeps events while the server is down and ships them when it is back', async () => {
    const { server, fetch } = fakeServer();
    outbox = await AuditOutbox.open({ endpoint: 'http://127.0.0.1:1/api/audit', fetch });
    for (let seq = 0; seq < 3; seq++) outbox.add(refusal(seq));
    await outbox.ship();
    expect(server.attempts).toBeGreaterThan(0);
    expect(outbox.waiting).toBe(3);
    server.up = true;
    await outbox.shipNow();
    expect(server.received.map((event) => event.seq)).toEqual([0, 1, 2]);
    expect(outbox.waiting).toBe(0);
  });

  it('past its cap counts the events it cannot keep and reports them as audit.dropped', async () => {
    const { server, fetch } = fakeServer();
    const shipResults: Array<{ shipped: number; waiting: number; error?: string }> = [];
    outbox = await AuditOutbox.open({ endpoint: 'http://127.0.0.1:1/api/audit', fetch, maxEvents: 5, onShip: (result) => shipResults.push(result) });
    for (let seq = 0; seq < 5; seq++) outbox.add(refusal(seq));
    // Past the cap: 4 more events, one of them a coalesced event standing for 10 refusals.
    outbox.add(refusal(5));
    outbox.add(refusal(6, 10));
    outbox.add({ v: 1, type: 'tool.refused', sessionId: 'sb-0123456789abcdef', seq: 7, time: new Date().toISOString(), source: 'sandbox-reported', runId: 1, tool: 'curl' });
    outbox.add(refusal(8));
    await outbox.ship();
    expect(outbox.waiting).toBe(5);
    expect(shipResults.at(-1)?.error).toContain('fetch failed');

    server.up = true;
    await outbox.shipNow();
    expect(server.received.slice(0, 5).map((event) => event.seq)).toEqual([0, 1, 2, 3, 4]);
    const dropped = server.received.filter((event) => event.type === 'audit.dropped') as Array<AuditEventOf<'audit.dropped'>>;
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ lost: 13, types: { 'write.refused': 12, 'tool.refused': 1 }, reason: expect.stringContaining('outbox was full (5 events') });
    expect(validateAuditEvent(JSON.parse(JSON.stringify(dropped[0]))).ok).toBe(true);
    expect(server.received).toHaveLength(6);
    expect(outbox.waiting).toBe(0);
  });

  it('stored events survive a reload (a new outbox on the same database)', async () => {
    const { server, fetch } = fakeServer();
    const first = await AuditOutbox.open({ endpoint: 'http://127.0.0.1:1/api/audit', fetch, maxEvents: 2 });
    first.add(refusal(0));
    first.add(refusal(1));
    await first.ship();
    first.close();
    server.up = true;
    outbox = await AuditOutbox.open({ endpoint: 'http://127.0.0.1:1/api/audit', fetch, maxEvents: 2 });
    expect(outbox.waiting).toBe(2);
    await outbox.shipNow();
    expect(server.received.map((event) => event.seq)).toEqual([0, 1]);
  });
});
