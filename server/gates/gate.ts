// StrictAndGate: the verdict over a set of signals is the strict AND of the required ones
// (ADR-0008: binary objective signals, no weights, no confidence). A required signal that is
// missing counts as failed. Pure: the same signals give the same verdict.

import type { GateSignal, SignalKind } from './signals/signal.js';

export interface GateVerdict {
  passed: boolean;
  /** False when any failed signal is non-retryable: the runner then escalates at once. */
  retryable: boolean;
  /** Empty when passed; else the failed signals' summaries, the next attempt's context. */
  summary: string;
  failed: SignalKind[];
  missing: SignalKind[];
}

export class StrictAndGate {
  constructor(
    readonly gateId: string,
    readonly requiredSignals: readonly SignalKind[],
  ) {}

  evaluate(signals: readonly GateSignal[]): GateVerdict {
    const present = new Set(signals.map((signal) => signal.kind));
    const missing = this.requiredSignals.filter((kind) => !present.has(kind));
    // Every failed signal of a required kind counts (two of one kind: both must pass).
    const failedSignals = signals.filter((signal) => this.requiredSignals.includes(signal.kind) && !signal.passed);
    const passed = missing.length === 0 && failedSignals.length === 0;
    const parts = [...failedSignals.map((signal) => `${signal.kind}: ${signal.summary}`), ...missing.map((kind) => `${kind}: no signal`)];
    return {
      passed,
      retryable: !passed && failedSignals.every((signal) => signal.retryable),
      summary: parts.join('; '),
      failed: [...new Set(failedSignals.map((signal) => signal.kind))],
      missing,
    };
  }
}
