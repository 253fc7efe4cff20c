import { describe, expect, it } from 'vitest';
import { parseSignalLine } from './gate-runs.js';

describe('parseSignalLine', () => {
  it('splits the ledger signal lines', () => {
    expect(parseSignalLine('tests:passed')).toEqual({ kind: 'tests', passed: true, detail: '' });
    expect(parseSignalLine('trace:failed: 1 not in the baseline: exec /usr/bin/sh -c x')).toEqual({ kind: 'trace', passed: false, detail: '1 not in the baseline: exec /usr/bin/sh -c x' });
    expect(parseSignalLine('garbage')).toEqual({ kind: '?', passed: false, detail: 'garbage' });
  });
});
