import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { StrictAndGate } from './gate.js';
import { SIGNAL_KINDS, type GateSignal, type SignalKind } from './signals/signal.js';

const signalArb = fc.record({
  kind: fc.constantFrom(...SIGNAL_KINDS),
  passed: fc.boolean(),
  retryable: fc.boolean(),
  summary: fc.string({ maxLength: 10 }),
  details: fc.constant({}),
  evidence: fc.constant([]),
}) as fc.Arbitrary<GateSignal>;

describe('StrictAndGate.evaluate', () => {
  it('passes exactly when every required signal is present and passed (property, all combinations)', () => {
    fc.assert(
      fc.property(fc.subarray([...SIGNAL_KINDS], { minLength: 1 }), fc.array(signalArb, { maxLength: 8 }), (required: SignalKind[], signals) => {
        const verdict = new StrictAndGate('g', required).evaluate(signals);
        const all = required.every((kind) => signals.some((s) => s.kind === kind) && signals.filter((s) => s.kind === kind).every((s) => s.passed));
        expect(verdict.passed).toBe(all);
        if (verdict.passed) expect(verdict.summary).toBe('');
        // Retryable only if failed and no failed required signal is non-retryable.
        const failedRequired = signals.filter((s) => required.includes(s.kind) && !s.passed);
        if (!verdict.passed) expect(verdict.retryable).toBe(failedRequired.every((s) => s.retryable));
      }),
    );
  });

  it('every one of the 2^4 pass/fail combinations of the four kinds equals all(passed)', () => {
    const gate = new StrictAndGate('strict', SIGNAL_KINDS);
    for (let mask = 0; mask < 16; mask++) {
      const signals = SIGNAL_KINDS.map((kind, i) => ({ kind, passed: (mask & (1 << i)) !== 0, retryable: true, summary: `${kind} failed`, details: {}, evidence: [] }));
      expect(gate.evaluate(signals).passed).toBe(mask === 15);
    }
  });

  it('counts a missing required signal as failed and names it; is pure', () => {
    const gate = new StrictAndGate('g', ['build', 'tests']);
    const signals: GateSignal[] = [{ kind: 'build', passed: true, retryable: true, summary: '', details: {}, evidence: [] }];
    const a = gate.evaluate(signals);
    expect(a).toEqual(gate.evaluate(signals));
    expect(a.passed).toBe(false);
    expect(a.missing).toEqual(['tests']);
    expect(a.summary).toBe('tests: no signal');
  });

  it('a failed trace signal makes the verdict non-retryable', () => {
    const gate = new StrictAndGate('g', ['tests', 'trace']);
    const verdict = gate.evaluate([
      { kind: 'tests', passed: false, retryable: true, summary: '1 of 3 failed', details: {}, evidence: [] },
      { kind: 'trace', passed: false, retryable: false, summary: 'new exec: /bin/sh', details: {}, evidence: [] },
    ]);
    expect(verdict.retryable).toBe(false);
    expect(verdict.summary).toBe('tests: 1 of 3 failed; trace: new exec: /bin/sh');
  });
});
