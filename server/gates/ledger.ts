// The gate ledger: attempts.jsonl of one gate run, append-only on the audit chain
// (src/host/audit/chain-log.ts — the same line format and verifier as the audit log). Each
// attempt is one `gate.attempt_completed` event carrying its id, signals, the failure
// handed to the next attempt and its cost entry; an escalation is a `gate.escalate` event.
// Between them, the run's other events (gate.attempt_started, sandbox.spec_built,
// sandbox.run_started/run_completed/timed_out/oom_killed) are chained as they happen.
// Before every append the whole file is verified (it is a few lines), so a line edited,
// removed or reordered since it was written stops the run (LedgerCorrupted) instead of
// being extended.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { AUDIT_SCHEMA_VERSION, type AuditDraft } from '../../src/protocol/audit/schema.js';
import { auditEventProblem, verifyAuditLog } from '../../src/host/audit/audit-log.js';
import { ChainLog } from '../../src/host/audit/chain-log.js';
import { readFile } from 'node:fs/promises';

export const LEDGER_FILE = 'attempts.jsonl';

export class LedgerCorrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerCorrupted';
  }
}

export interface AttemptCost {
  vmSeconds: number;
  bytesIn: number;
  bytesOut: number;
  /** 1 when the attempt's cost entry could not be written to costs.jsonl (a warning, not fatal). */
  emissionError?: number;
}

export interface AttemptRecord {
  attempt: number;
  attemptId: string;
  time: string;
  backend: string;
  sandboxRunId: string | null;
  specHash: string | null;
  passed: boolean;
  retryable: boolean;
  /** The verdict in one line ('passed', or what failed). */
  summary: string;
  /** "kind:passed" / "kind:failed: detail" per signal. */
  signals: string[];
  failureSummary: string | null;
  /** The failure of the attempt before, as this attempt's producer was given it. */
  priorFailureSummary: string | null;
  cost: AttemptCost;
}

export interface LedgerContents {
  attempts: AttemptRecord[];
  escalation: { reason: string; attempts: number } | null;
  lines: number;
}

/** Reads and verifies a ledger: the chain, every event against the audit schema, attempt order. */
export async function readLedger(path: string): Promise<LedgerContents> {
  if (!existsSync(path)) throw new LedgerCorrupted(`${path}: no such ledger`);
  const report = await verifyAuditLog(path, { schema: true });
  if (!report.ok) {
    const problem = report.problem;
    throw new LedgerCorrupted(`${problem?.file ?? path}${problem?.line === undefined ? '' : `:${problem.line}`}: ${problem?.message ?? 'the chain does not verify'}`);
  }
  const attempts: AttemptRecord[] = [];
  let escalation: LedgerContents['escalation'] = null;
  const lines = (await readFile(path, 'utf8')).split('\n').filter((line) => line !== '');
  for (const [index, line] of lines.entries()) {
    const event = (JSON.parse(line) as { event: Record<string, unknown> }).event;
    if (event.type === 'gate.attempt_completed') {
      const record = toRecord(event);
      if (record.attempt !== attempts.length + 1) throw new LedgerCorrupted(`${path}:${index + 1}: attempt ${record.attempt} out of order (expected ${attempts.length + 1})`);
      if (escalation !== null) throw new LedgerCorrupted(`${path}:${index + 1}: an attempt after the escalation`);
      attempts.push(record);
    } else if (event.type === 'gate.escalate') {
      escalation = { reason: String(event.reason), attempts: Number(event.attempts) };
    }
  }
  return { attempts, escalation, lines: lines.length };
}

function toRecord(event: Record<string, unknown>): AttemptRecord {
  const cost = event.cost as Record<string, number>;
  return {
    attempt: event.attempt as number, attemptId: event.attemptId as string, time: event.time as string, backend: event.backend as string,
    sandboxRunId: event.sandboxRunId as string | null, specHash: event.specHash as string | null,
    passed: event.passed as boolean, retryable: event.retryable as boolean, summary: event.summary as string,
    signals: event.signals as string[], failureSummary: event.failureSummary as string | null,
    priorFailureSummary: event.priorFailureSummary as string | null,
    cost: { vmSeconds: cost.vmSeconds ?? 0, bytesIn: cost.bytesIn ?? 0, bytesOut: cost.bytesOut ?? 0, ...(cost.emissionError === undefined ? {} : { emissionError: cost.emissionError }) },
  };
}

export class AttemptLedger {
  private attempts = 0;
  private seq = 0;

  private constructor(
    readonly path: string,
    private readonly log: ChainLog,
    private readonly gateId: string,
    private readonly gateRunId: string,
  ) {}

  /** Starts the ledger of a new gate run in `dir` (refuses a directory that has one). */
  static async create(dir: string, gateId: string, gateRunId: string): Promise<AttemptLedger> {
    const path = join(dir, LEDGER_FILE);
    if (existsSync(path)) throw new LedgerCorrupted(`${path}: a ledger already exists for this gate run`);
    return new AttemptLedger(path, await ChainLog.open(path), gateId, gateRunId);
  }

  private async precheck(): Promise<void> {
    await this.log.flush();
    const contents = await readLedger(this.path);
    const head = this.log.currentHead;
    if (contents.lines !== head.next) throw new LedgerCorrupted(`${this.path}: ${contents.lines} lines on disk, but this writer wrote ${head.next}: the file was changed`);
    if (contents.attempts.length !== this.attempts) throw new LedgerCorrupted(`${this.path}: ${contents.attempts.length} attempts on disk, expected ${this.attempts}`);
  }

  private envelope(type: string): Record<string, unknown> {
    return { v: AUDIT_SCHEMA_VERSION, type, sessionId: null, seq: this.seq++, time: new Date().toISOString(), source: 'gate' };
  }

  private base(type: string): Record<string, unknown> {
    return { ...this.envelope(type), gateId: this.gateId, gateRunId: this.gateRunId };
  }

  /** Appends attempt N+1 (after verifying everything before it). */
  async record(entry: Omit<AttemptRecord, 'attempt' | 'attemptId' | 'time'>): Promise<AttemptRecord> {
    await this.precheck();
    const attempt = this.attempts + 1;
    const event = {
      ...this.base('gate.attempt_completed'), attempt, attemptId: uuidv7(), backend: entry.backend,
      sandboxRunId: entry.sandboxRunId, specHash: entry.specHash, passed: entry.passed, retryable: entry.retryable,
      summary: entry.summary.slice(0, 1000), signals: entry.signals.slice(0, 256).map((line) => line.slice(0, 1000)),
      failureSummary: entry.failureSummary?.slice(0, 1000) ?? null, priorFailureSummary: entry.priorFailureSummary?.slice(0, 1000) ?? null,
      cost: { ...entry.cost },
    };
    const problem = auditEventProblem(new TextEncoder().encode(JSON.stringify(event)));
    if (problem !== undefined) throw new LedgerCorrupted(`refusing to write an invalid attempt: ${problem}`);
    this.log.append(event);
    await this.log.flush();
    this.attempts = attempt;
    return toRecord(event);
  }

  async escalate(reason: string): Promise<void> {
    await this.precheck();
    this.log.append({ ...this.base('gate.escalate'), attempts: this.attempts, reason: reason.slice(0, 1000) });
    await this.log.flush();
  }

  /** Chains one of the run's other events (checked against the audit schema first). */
  note(draft: Exclude<AuditDraft, { type: 'gate.attempt_completed' | 'gate.escalate' }>): void {
    const event = { ...this.envelope(draft.type), ...draft };
    const problem = auditEventProblem(new TextEncoder().encode(JSON.stringify(event)));
    if (problem !== undefined) throw new LedgerCorrupted(`refusing to write an invalid event: ${problem}`);
    this.log.append(event);
  }

  async close(): Promise<void> {
    await this.log.close();
  }
}
