// The server's audit sink: events from browser sandboxes (posted by their pages) and the
// server's own (gateway decisions), appended to the hash-chained log file when one is
// configured, and kept in memory (the newest audit.memoryEvents) for the query API.

import type { AuditDraft, AuditEvent, AuditSource } from '../../src/protocol/audit/schema.js';
import { validateAuditEvent } from '../../src/protocol/audit/validate.js';
import { AuditEmitter } from '../../src/host/audit/emitter.js';
import { matchesFilter, type EventFilter } from '../../src/host/audit/filter.js';
import { AuditFileSink } from '../../src/host/audit/file-sink.js';
import type { NoteSigner } from '../../src/host/audit/signed-note.js';
import type { AuditPostReply } from '../../src/protocol/audit/api.js';

/** The sources a page may state (the server, gate and agent speak for themselves). */
const PAGE_SOURCES = new Set<AuditSource>(['host', 'sandbox-reported']);
/** Sessions whose last seq is remembered for duplicate detection. */
const SESSIONS_REMEMBERED = 10_000;

export class AuditRefusal extends Error {
  readonly statusCode = 400;
}

export interface AuditStoreOptions {
  file?: string;
  maxBytes?: number;
  signer?: NoteSigner;
  memoryEvents: number;
}

export interface StoredEvent {
  n: number;
  event: AuditEvent;
}

export class ServerAuditStore {
  private readonly memory: StoredEvent[] = [];
  private nextN = 0;
  private readonly lastSeq = new Map<string, number>();
  private readonly emitters = new Map<string | null, AuditEmitter>();

  private constructor(
    private readonly sink: AuditFileSink | undefined,
    private readonly memoryEvents: number,
  ) {
    if (sink !== undefined) this.nextN = sink.log.currentHead.next;
  }

  static async open(options: AuditStoreOptions): Promise<ServerAuditStore> {
    const sink = options.file === undefined ? undefined : await AuditFileSink.open(options.file, { maxBytes: options.maxBytes, signer: options.signer });
    return new ServerAuditStore(sink, options.memoryEvents);
  }

  private keep(event: AuditEvent): void {
    const n = this.sink !== undefined ? this.sink.log.currentHead.next : this.nextN;
    this.sink?.append(event);
    this.nextN = n + 1;
    this.memory.push({ n, event });
    if (this.memory.length > this.memoryEvents) this.memory.splice(0, this.memory.length - this.memoryEvents);
  }

  /**
   * Takes a page's batch: every event checked first (a refusal names the first bad one and
   * keeps nothing), duplicates skipped.
   */
  ingest(batch: unknown[]): AuditPostReply {
    const events: AuditEvent[] = [];
    for (const [index, item] of batch.entries()) {
      const checked = validateAuditEvent(item);
      if (!checked.ok) throw new AuditRefusal(`event ${index}: ${checked.error}`);
      if (!PAGE_SOURCES.has(checked.event.source)) throw new AuditRefusal(`event ${index}: a page may not send ${checked.event.source} events`);
      if (checked.event.sessionId === null) throw new AuditRefusal(`event ${index}: a page's events belong to a session (sessionId is null)`);
      events.push(checked.event);
    }
    let accepted = 0;
    for (const event of events) {
      const session = event.sessionId as string;
      const last = this.lastSeq.get(session);
      if (last !== undefined && event.seq <= last) continue;
      this.lastSeq.delete(session);
      this.lastSeq.set(session, event.seq);
      if (this.lastSeq.size > SESSIONS_REMEMBERED) this.lastSeq.delete(this.lastSeq.keys().next().value as string);
      this.keep(event);
      accepted++;
    }
    return { accepted, duplicates: events.length - accepted };
  }

  /** Records the server's own event (coalesced like a sandbox's). */
  record(draft: AuditDraft, options: { sessionId?: string | null; source?: AuditSource } = {}): void {
    const sessionId = options.sessionId ?? null;
    let emitter = this.emitters.get(sessionId);
    if (emitter === undefined) {
      emitter = new AuditEmitter({ sessionId, source: 'server', listener: (event) => this.keep(event) });
      if (this.emitters.size >= SESSIONS_REMEMBERED) this.emitters.clear();
      this.emitters.set(sessionId, emitter);
    }
    emitter.emit(draft, { source: options.source ?? 'server' });
  }

  /** One page of the events in memory that match `filter`, after position `after`. */
  query(filter: EventFilter, after: number, limit: number): { events: StoredEvent[]; next: number | null } {
    let low = 0;
    let high = this.memory.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.memory[mid] as StoredEvent).n <= after) low = mid + 1;
      else high = mid;
    }
    const events: StoredEvent[] = [];
    for (let i = low; i < this.memory.length; i++) {
      const stored = this.memory[i] as StoredEvent;
      if (!matchesFilter(stored.event, filter)) continue;
      if (events.length === limit) return { events, next: (events.at(-1) as StoredEvent).n };
      events.push(stored);
    }
    return { events, next: null };
  }

  async close(): Promise<void> {
    for (const emitter of this.emitters.values()) emitter.flush();
    await this.sink?.close();
  }
}
