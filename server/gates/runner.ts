// The gate runner: for attempt 1..max — build the spec, execute it, collect the signals,
// evaluate (strict AND), record the attempt on the ledger, then pass, retry with the prior
// failure, or stop. Non-retryable: a trace diff, a timeout (unless the gate opts in), OOM,
// an unreachable backend. Outcomes: passed (exit 0), failed — the gate could not decide and
// an operator must act (exit 1: unreachable backend, OOM, corrupted ledger) — and escalated
// to a human (exit 11: attempts exhausted, or a failure no retry may fix).

import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { AuditDraft } from '../../src/protocol/audit/schema.js';
import type { SandboxClient, SandboxRun, SandboxSpec } from '../backends/contract.js';
import { SandboxBackendUnavailable, SandboxError, SandboxImageUnavailable, SandboxRunFailed } from '../backends/errors.js';
import type { GateDefinition } from './catalog.js';
import { StrictAndGate, type GateVerdict } from './gate.js';
import { AttemptLedger, LEDGER_FILE, type AttemptRecord } from './ledger.js';
import type { Regenerator } from './regenerator.js';
import { collectBuildSignal } from './signals/build.js';
import { collectPolicySignal } from './signals/policy.js';
import { signalLine, type GateSignal } from './signals/signal.js';
import { collectTestsSignal } from './signals/tests.js';
import { collectTraceSignal } from './signals/trace.js';
import { buildSpec } from './spec-builder.js';

export type GateOutcomeKind = 'passed' | 'failed' | 'escalated';
export const EXIT_CODES: Record<GateOutcomeKind, number> = { passed: 0, failed: 1, escalated: 11 };

export interface GateRunOptions {
  gate: GateDefinition;
  workspace: string;
  client: SandboxClient;
  /** Where gate runs live: <gatesDir>/runs/<gateRunId>/. */
  gatesDir: string;
  maxAttempts?: number;
  regenerate?: Regenerator;
  /** The workspace before the change, for the policy's diff rules. */
  base?: string | null;
  onProgress?: (event: GateProgress) => void;
  signal?: AbortSignal;
  /** The gate run's id (UUIDv7), when the caller needs it before run() resolves. */
  gateRunId?: string;
  /**
   * Every audit event of the run as it happens (gate.attempt_started, sandbox.spec_built,
   * sandbox.run_started, run_completed, timed_out, oom_killed, gate.attempt_completed,
   * gate.escalate): the server records them in its audit log. The ledger chains them too.
   */
  audit?: (draft: AuditDraft) => void;
}

type RunEvent = Exclude<AuditDraft, { type: 'gate.attempt_completed' | 'gate.escalate' }>;

export type GateProgress =
  | { type: 'attempt-started'; attempt: number }
  | { type: 'sandbox'; attempt: number; message: string }
  | { type: 'attempt-completed'; attempt: number; record: AttemptRecord }
  | { type: 'regenerating'; attempt: number }
  | { type: 'finished'; outcome: GateOutcome };

export interface GateOutcome {
  gateRunId: string;
  gateId: string;
  outcome: GateOutcomeKind;
  exitCode: number;
  /** Why it failed or escalated; empty when passed. */
  reason: string;
  attempts: AttemptRecord[];
  ledgerPath: string;
  runDir: string;
}

interface AttemptResult {
  run: SandboxRun | null;
  spec: SandboxSpec | null;
  signals: GateSignal[];
  verdict: GateVerdict;
  /** An operator must act (OOM, unreachable backend): stop with `failed`. */
  operatorFailure: string | null;
}

export class GateRunner {
  private readonly gate: StrictAndGate;
  /** Chains a run event on the ledger and hands it to the audit listener (set by run()). */
  private note: (draft: RunEvent) => void = () => undefined;

  constructor(private readonly options: GateRunOptions) {
    this.gate = new StrictAndGate(options.gate.id, options.gate.requiredSignals);
  }

  async run(): Promise<GateOutcome> {
    const { gate, gatesDir } = this.options;
    // A workspace without the commands the gate needs is a usage error: refused before any run.
    buildSpec(gate, 1, this.options.workspace, this.options.client.backend);
    const gateRunId = this.options.gateRunId ?? uuidv7();
    const runDir = join(gatesDir, 'runs', gateRunId);
    mkdirSync(runDir, { recursive: true });
    const maxAttempts = this.options.maxAttempts ?? gate.retry.maxAttempts;
    const manifest = {
      gateRunId, gateId: gate.id, gateFile: gate.file, backend: this.options.client.backend, workspace: this.options.workspace,
      maxAttempts, startedAt: new Date().toISOString(), ledger: LEDGER_FILE,
    };
    writeFileSync(join(runDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    const ledger = await AttemptLedger.create(runDir, gate.id, gateRunId);
    this.note = (draft) => {
      ledger.note(draft);
      this.options.audit?.(draft);
    };
    const attempts: AttemptRecord[] = [];
    let prior: string | null = null;
    let finish: { outcome: GateOutcomeKind; reason: string } | undefined;
    try {
      for (let attempt = 1; attempt <= maxAttempts && finish === undefined; attempt++) {
        if (attempt > 1 && this.options.regenerate !== undefined && prior !== null) {
          this.options.onProgress?.({ type: 'regenerating', attempt });
          await this.options.regenerate({ gateId: gate.id, gateRunId, nextAttempt: attempt, workspace: this.options.workspace, priorFailure: prior });
        }
        this.options.onProgress?.({ type: 'attempt-started', attempt });
        this.note({ type: 'gate.attempt_started', gateId: gate.id, gateRunId, attempt });
        const result = await this.attempt(attempt, runDir);
        const record = await ledger.record({
          backend: this.options.client.backend, sandboxRunId: result.run?.runId ?? null, specHash: result.spec?.specHash ?? null,
          passed: result.verdict.passed, retryable: result.verdict.retryable, summary: result.verdict.passed ? 'passed' : result.verdict.summary,
          signals: result.signals.map(signalLine), failureSummary: result.verdict.passed ? null : result.verdict.summary, priorFailureSummary: prior,
          cost: this.cost(runDir, result.run),
        });
        attempts.push(record);
        this.options.audit?.({
          type: 'gate.attempt_completed', gateId: gate.id, gateRunId, attempt: record.attempt, attemptId: record.attemptId, backend: record.backend,
          sandboxRunId: record.sandboxRunId, specHash: record.specHash, passed: record.passed, retryable: record.retryable, summary: record.summary,
          signals: record.signals, failureSummary: record.failureSummary, priorFailureSummary: record.priorFailureSummary, cost: { ...record.cost },
        });
        this.options.onProgress?.({ type: 'attempt-completed', attempt, record });
        if (result.verdict.passed) finish = { outcome: 'passed', reason: '' };
        else if (result.operatorFailure !== null) finish = { outcome: 'failed', reason: result.operatorFailure };
        else if (!result.verdict.retryable) finish = { outcome: 'escalated', reason: `not retryable: ${result.verdict.summary}` };
        prior = result.verdict.summary;
      }
      if (finish === undefined) {
        const identical = attempts.length > 1 && attempts.every((a) => a.failureSummary === attempts[0]?.failureSummary);
        finish = { outcome: 'escalated', reason: `${attempts.length} attempts failed${identical ? ' identically' : ''}: ${prior ?? ''}` };
      }
      if (finish.outcome === 'escalated') {
        await ledger.escalate(finish.reason);
        this.options.audit?.({ type: 'gate.escalate', gateId: gate.id, gateRunId, attempts: attempts.length, reason: finish.reason.slice(0, 1000) });
      }
    } finally {
      await ledger.close();
    }
    const outcome: GateOutcome = { gateRunId, gateId: gate.id, outcome: finish.outcome, exitCode: EXIT_CODES[finish.outcome], reason: finish.reason, attempts, ledgerPath: ledger.path, runDir };
    writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ ...manifest, endedAt: new Date().toISOString(), outcome: outcome.outcome, exitCode: outcome.exitCode, reason: outcome.reason, attempts: attempts.length }, null, 2) + '\n');
    this.options.onProgress?.({ type: 'finished', outcome });
    return outcome;
  }

  private async attempt(attempt: number, runDir: string): Promise<AttemptResult> {
    const { gate, client, workspace } = this.options;
    const spec = buildSpec(gate, attempt, workspace, client.backend);
    const backend = client.backend;
    this.note({ type: 'sandbox.spec_built', backend, specHash: spec.specHash });
    let run: SandboxRun;
    try {
      run = await client.execute(spec, {
        runsDir: join(runDir, 'sandbox'),
        onStarted: ({ runId }) => this.note({ type: 'sandbox.run_started', backend, specHash: spec.specHash, sandboxRunId: runId }),
        onProgress: (event) => this.options.onProgress?.({ type: 'sandbox', attempt, message: event.message }),
        onNetworkDecision: (decision) => this.note({ type: 'network.decision', runId: null, ...decision }),
        ...(this.options.signal === undefined ? {} : { signal: this.options.signal }),
      });
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      const unreachable = error instanceof SandboxBackendUnavailable;
      const what = error instanceof SandboxImageUnavailable ? 'image unavailable' : unreachable ? 'backend unreachable' : 'sandbox run failed';
      const summary = `${what}: ${error.message}`;
      const verdict: GateVerdict = { passed: false, retryable: error instanceof SandboxRunFailed, summary, failed: [], missing: [...gate.requiredSignals] };
      return { run: null, spec, signals: [], verdict, operatorFailure: unreachable || !(error instanceof SandboxRunFailed) ? summary : null };
    }
    this.note({ type: 'sandbox.run_completed', backend, sandboxRunId: run.runId, exitCode: run.exitCode, durationMs: run.durationMs });
    if (run.timedOut) this.note({ type: 'sandbox.timed_out', backend, sandboxRunId: run.runId, timeBudgetMs: spec.timeBudgetSeconds * 1000 });
    if (run.killedByOom) this.note({ type: 'sandbox.oom_killed', backend, sandboxRunId: run.runId, memoryLimitBytes: spec.memoryLimitMiB * 1024 * 1024 });
    const signals = this.collect(run).map((signal) => this.applyRetryPolicy(signal, run));
    const verdict = this.gate.evaluate(signals);
    const operatorFailure = run.killedByOom ? `out of memory (memoryLimitMiB ${spec.memoryLimitMiB}): raise the gate's memoryLimitMiB and run again` : null;
    return { run, spec, signals, verdict, operatorFailure };
  }

  private collect(run: SandboxRun): GateSignal[] {
    const { gate, workspace } = this.options;
    const signals: GateSignal[] = [];
    for (const kind of gate.requiredSignals) {
      if (kind === 'build') signals.push(collectBuildSignal(run));
      else if (kind === 'tests') signals.push(collectTestsSignal(run));
      else if (kind === 'trace') signals.push(collectTraceSignal(run, join(workspace, gate.trace.baseline)));
      else signals.push(collectPolicySignal(workspace, gate.policy, this.options.base ?? null));
    }
    return signals;
  }

  /** The gate's retry policy over a signal's own view (a timeout is retryable only if the gate says so). */
  private applyRetryPolicy(signal: GateSignal, run: SandboxRun): GateSignal {
    if (signal.passed) return signal;
    const { retry, policy } = this.options.gate;
    let retryable = signal.retryable && (retry.retryable.includes(signal.kind) || (signal.kind === 'policy' && policy.retryAllowed === true));
    if (run.timedOut) retryable = retry.timeoutRetryable;
    if (run.killedByOom || signal.kind === 'trace') retryable = false;
    return { ...signal, retryable };
  }

  /** The attempt's cost entry, also appended to costs.jsonl; a failed write is reported, not fatal. */
  private cost(runDir: string, run: SandboxRun | null): { vmSeconds: number; bytesIn: number; bytesOut: number; emissionError?: number } {
    const cost = { vmSeconds: run?.vmSeconds ?? 0, bytesIn: run?.bytesIn ?? 0, bytesOut: run?.bytesOut ?? 0 };
    try {
      appendFileSync(join(runDir, 'costs.jsonl'), JSON.stringify({ type: 'cost.sandbox.run', sandboxRunId: run?.runId ?? null, backend: this.options.client.backend, ...cost }) + '\n');
      return cost;
    } catch (error) {
      process.emitWarning(`gate cost entry not written: ${(error as Error).message}`);
      return { ...cost, emissionError: 1 };
    }
  }
}
