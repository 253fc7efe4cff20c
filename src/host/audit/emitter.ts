// Turns what happened into audit events for one session: fills in the base fields (schema
// version, session, seq, time, source) and hands each event to the listener at once.
//
// Floods are coalesced: the first refusal with a given subject in a window (1 s) is emitted
// at once; repeats of it within the window are only counted, and when the window ends one
// event with `count` (and `lastTime`) stands for them. A flood of refusals with ever new
// subjects is bounded too: past MAX_KEYS subjects in a window, further refusals are counted
// by type into one `audit.coalesced` event. Nothing is lost: the counts add up to every
// occurrence. Emitting is synchronous and never waits for a sink.

import { AUDIT_SCHEMA_VERSION, isRefusal, type AuditDraft, type AuditEvent, type AuditSource } from '../../protocol/audit/schema.js';

export type AuditListener = (event: AuditEvent) => void;

/** How long repeats of one refusal are counted before their summary is emitted. */
export const COALESCE_WINDOW_MS = 1000;
/** Distinct refusal subjects tracked per window; beyond them refusals are counted by type. */
export const COALESCE_MAX_KEYS = 1000;

interface Pending {
  draft: AuditDraft;
  source: AuditSource;
  /** Occurrences after the first (which was emitted at once). */
  count: number;
  firstTime: number;
  lastTime: number;
}

export interface AuditEmitterOptions {
  sessionId: string | null;
  listener: AuditListener;
  /** The source of events emitted without one (default 'host'). */
  source?: AuditSource;
  /** The clock (ms since the epoch; tests). */
  now?: () => number;
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export class AuditEmitter {
  readonly sessionId: string | null;
  private seq = 0;
  private pending = new Map<string, Pending>();
  /** Keys seen in this window (emitted once), so a repeat is counted instead. */
  private seen = new Set<string>();
  private overflow = new Map<string, number>();
  private overflowFirst = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: AuditEmitterOptions) {
    this.sessionId = options.sessionId;
    this.now = options.now ?? Date.now;
  }

  /**
   * Emits an event (or, for a refusal repeated within the window, counts it). `count` says
   * how many occurrences the draft stands for (a kernel's per-run tally).
   */
  emit(draft: AuditDraft, options: { source?: AuditSource; count?: number } = {}): void {
    const source = options.source ?? this.options.source ?? 'host';
    const count = options.count ?? 1;
    if (!isRefusal(draft)) {
      this.deliver(draft, source, count, this.now());
      return;
    }
    const key = `${source}\u0000${JSON.stringify(draft)}`;
    const now = this.now();
    if (!this.seen.has(key)) {
      if (this.seen.size >= COALESCE_MAX_KEYS) {
        if (this.overflow.size === 0) this.overflowFirst = now;
        this.overflow.set(draft.type, (this.overflow.get(draft.type) ?? 0) + count);
        this.arm();
        return;
      }
      this.seen.add(key);
      this.deliver(draft, source, count, now);
      this.arm();
      return;
    }
    const pending = this.pending.get(key);
    if (pending === undefined) this.pending.set(key, { draft, source, count, firstTime: now, lastTime: now });
    else {
      pending.count += count;
      pending.lastTime = now;
    }
  }

  /** Emits the counted repeats now and starts a new window (run end, destroy, a timer). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const pending = this.pending;
    const overflow = this.overflow;
    this.pending = new Map();
    this.seen = new Set();
    this.overflow = new Map();
    for (const item of pending.values()) this.deliver(item.draft, item.source, item.count, item.firstTime, item.lastTime);
    if (overflow.size > 0) {
      const types = Object.fromEntries(overflow);
      const total = [...overflow.values()].reduce((a, b) => a + b, 0);
      this.deliver(
        { type: 'audit.coalesced', types, reason: `more than ${COALESCE_MAX_KEYS} different refusals within ${COALESCE_WINDOW_MS} ms; these were counted by type` },
        'host',
        total,
        this.overflowFirst,
        this.now(),
      );
    }
  }

  private arm(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, COALESCE_WINDOW_MS);
    // A pending summary must not keep a Node process alive; flush() at the end emits it.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private deliver(draft: AuditDraft, source: AuditSource, count: number, time: number, lastTime?: number): void {
    const { type, ...fields } = draft;
    const event = { v: AUDIT_SCHEMA_VERSION, type, sessionId: this.sessionId, seq: this.seq++, time: isoTime(time), source, ...fields } as AuditEvent;
    if (count !== 1) event.count = count;
    if (lastTime !== undefined && lastTime !== time) event.lastTime = isoTime(lastTime);
    try {
      this.options.listener(event);
    } catch {
      // A failing listener is the application's problem; the sandbox goes on.
    }
  }
}
