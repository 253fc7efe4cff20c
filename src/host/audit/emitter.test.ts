// Flood coalescing in the emitter: repeats are counted, never lost, and the listener sees a
// bounded number of events however many refusals come.

import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../protocol/audit/schema.js';
import { validateAuditEvent } from '../../protocol/audit/validate.js';
import { AuditEmitter, COALESCE_MAX_KEYS } from './emitter.js';

function collect(): { events: AuditEvent[]; emitter: AuditEmitter } {
  const events: AuditEvent[] = [];
  let clock = Date.UTC(2026, 0, 1);
  const emitter = new AuditEmitter({ sessionId: 'sb-test', listener: (e) => events.push(e), now: () => (clock += 1) });
  return { events, emitter };
}

const total = (events: AuditEvent[], type: string): number => events.filter((e) => e.type === type).reduce((sum, e) => sum + (e.count ?? 1), 0);

describe('flood coalescing', () => {
  it('a million identical refusals become two events whose counts add up', () => {
    const { events, emitter } = collect();
    for (let i = 0; i < 1_000_000; i++) emitter.emit({ type: 'tool.refused', runId: 1, tool: 'curl' }, { source: 'sandbox-reported' });
    emitter.flush();
    expect(events).toHaveLength(2);
    expect(events[0]).not.toHaveProperty('count');
    expect(events[1]).toMatchObject({ type: 'tool.refused', tool: 'curl', count: 999_999, source: 'sandbox-reported' });
    expect(events[1]?.lastTime).toBeDefined();
    expect(total(events, 'tool.refused')).toBe(1_000_000);
    for (const event of events) expect(validateAuditEvent(JSON.parse(JSON.stringify(event))).ok).toBe(true);
  });

  it('ever-new subjects are counted by type past the key limit', () => {
    const { events, emitter } = collect();
    for (let i = 0; i < 50_000; i++) emitter.emit({ type: 'write.refused', runId: 1, errno: 'EROFS', path: `/etc/f${i}`, limit: null });
    emitter.flush();
    expect(events).toHaveLength(COALESCE_MAX_KEYS + 1);
    const summary = events.at(-1);
    expect(summary).toMatchObject({ type: 'audit.coalesced', count: 50_000 - COALESCE_MAX_KEYS, types: { 'write.refused': 50_000 - COALESCE_MAX_KEYS } });
    expect(total(events, 'write.refused') + (summary?.count ?? 0)).toBe(50_000);
  });

  it('passes other events through at once and keeps seq in order', () => {
    const { events, emitter } = collect();
    emitter.emit({ type: 'run.started', runId: 1, command: 'x', commandBytes: 1, commandHash: '0'.repeat(64), commandTruncated: false, argv: false });
    emitter.emit({ type: 'limit.hit', runId: 1, limit: 'fsBytes', value: 10 });
    emitter.emit({ type: 'limit.hit', runId: 1, limit: 'fsBytes', value: 10 });
    emitter.flush();
    emitter.emit({ type: 'sandbox.destroyed' });
    expect(events.map((e) => [e.type, e.seq, e.count ?? 1])).toEqual([
      ['run.started', 0, 1],
      ['limit.hit', 1, 1],
      ['limit.hit', 2, 1],
      ['sandbox.destroyed', 3, 1],
    ]);
  });

  it('a listener that throws does not stop the emitter', () => {
    let calls = 0;
    const emitter = new AuditEmitter({
      sessionId: null,
      listener: () => {
        calls++;
        throw new Error('broken sink');
      },
    });
    emitter.emit({ type: 'sandbox.destroyed' });
    emitter.emit({ type: 'sandbox.destroyed' });
    expect(calls).toBe(2);
  });
});
