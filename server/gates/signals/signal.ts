// A gate signal: one objective measurement of a sandbox run (ADR-0008: facts, not
// judgments). Every collector is a pure function of the run's directory on disk.

export type SignalKind = 'build' | 'tests' | 'trace' | 'policy';
export const SIGNAL_KINDS: readonly SignalKind[] = ['build', 'tests', 'trace', 'policy'];

export interface GateSignal {
  kind: SignalKind;
  passed: boolean;
  /** Whether another attempt may fix a failure (a trace diff, a timeout, OOM never can by default). */
  retryable: boolean;
  /** One line: what was measured, or what failed. */
  summary: string;
  /** Short structured facts (counts, names); primitives only so the ledger stays reproducible. */
  details: Record<string, string | number | boolean>;
  /** Files the signal read (logs, reports, trace), relative to the run directory where possible. */
  evidence: string[];
}

/** A signal for the ledger: "kind:passed" or "kind:failed: summary". */
export function signalLine(signal: GateSignal): string {
  return signal.passed ? `${signal.kind}:passed` : `${signal.kind}:failed: ${signal.summary}`.slice(0, 1000);
}
