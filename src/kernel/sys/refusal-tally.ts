// The kernel's count of its refusals (refusal.ts), sent to the host as `refusals` worker
// events (src/protocol/audit/refusals.ts) instead of one message per refusal: a loop that
// is refused a million times costs a map update each, and the host gets one entry with
// count 1000000. Tallies are sent when a run ends (before its reply), when the current run
// changes, and FLUSH_MS after the first refusal of a quiet stretch, so a long run's
// refusals show while it goes on.

import { REFUSAL_REPORT_MAX, type RefusalReport } from '../../protocol/audit/refusals.js';
import type { Refusal } from './refusal.js';

/** How long counted refusals wait before they are sent during a run. */
export const REFUSAL_FLUSH_MS = 500;
/**
 * Different refusals counted one by one per report; past this, by kind only (a tool, or a
 * write by errno and limit: at most 5 such entries), so a report stays within the entries
 * the host reads.
 */
export const REFUSAL_SUBJECTS_MAX = REFUSAL_REPORT_MAX - 5;

export class RefusalTally {
  private entries = new Map<string, RefusalReport>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private runId: number | null = null;

  constructor(private readonly send: (runId: number | null, refusals: RefusalReport[]) => void) {}

  add(refusal: Refusal): void {
    let key = refusal.kind === 'tool' ? `t\u0000${refusal.tool}` : `w\u0000${refusal.errno}\u0000${refusal.limit ?? ''}\u0000${refusal.path}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (this.entries.size >= REFUSAL_SUBJECTS_MAX) {
        // Too many different subjects: keep counting, by kind, without the subject.
        key = refusal.kind === 'tool' ? 't\u0000' : `w\u0000${refusal.errno}\u0000${refusal.limit ?? ''}\u0000`;
        entry = this.entries.get(key);
      }
      if (entry === undefined) {
        entry =
          refusal.kind === 'tool'
            ? { kind: 'tool', tool: key === 't\u0000' ? '(other tools)' : refusal.tool, count: 0 }
            : { kind: 'write', errno: refusal.errno, path: key.endsWith('\u0000') ? '(other paths)' : refusal.path, limit: refusal.limit ?? null, count: 0 };
        this.entries.set(key, entry);
      }
    }
    entry.count++;
    this.timer ??= setTimeout(() => this.flush(), REFUSAL_FLUSH_MS);
  }

  /** Sends what is counted, as refusals of the current run. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.entries.size === 0) return;
    const refusals = [...this.entries.values()];
    this.entries = new Map();
    this.send(this.runId, refusals);
  }

  /** The run refusals count against from now on (null between runs: background jobs). */
  setRun(runId: number | null): void {
    this.flush();
    this.runId = runId;
  }
}
