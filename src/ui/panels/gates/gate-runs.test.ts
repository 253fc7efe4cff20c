import { describe, expect, it } from 'vitest';
import { describePlacement, parseSignalLine } from './gate-runs.js';

describe('parseSignalLine', () => {
  it('splits the ledger signal lines', () => {
    expect(parseSignalLine('tests:passed')).toEqual({ kind: 'tests', passed: true, detail: '' });
    expect(parseSignalLine('trace:failed: 1 not in the baseline: exec /usr/bin/sh -c x')).toEqual({ kind: 'trace', passed: false, detail: '1 not in the baseline: exec /usr/bin/sh -c x' });
    expect(parseSignalLine('garbage')).toEqual({ kind: '?', passed: false, detail: 'garbage' });
  });
});

describe('describePlacement', () => {
  it('names the worker a run executed on, and the one it was taken over from', () => {
    const executedOn = {
      r1: { workerId: 'w2', host: 'vm-host-2', version: 'airlock 0.1.0', jobId: 'j1', deliveries: [{ workerId: 'w1', sandboxRunId: 'r0', at: '' }, { workerId: 'w2', sandboxRunId: 'r1', at: '' }] },
    };
    expect(describePlacement('r1', executedOn)).toBe('worker w2 on vm-host-2 (taken over from w1)');
    expect(describePlacement('r9', executedOn)).toBe('in-process on the server');
    expect(describePlacement(null, undefined)).toBe('in-process on the server');
  });
});
