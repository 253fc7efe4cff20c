// A page's audit outbox: its sandboxes' events are kept in IndexedDB until the server that
// served the page has them (POST /api/audit), so events survive a server that is down, a
// network that is gone, and a reload. Shipping retries with a growing pause (and at once
// when the browser says it is back online); the server skips events it already has, so two
// tabs shipping the same events is harmless.
//
// The outbox is bounded: past maxEvents, further events are counted by type, and an
// `audit.dropped` event saying how many were lost is stored once there is room again.

import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { AUDIT_BATCH_MAX, AUDIT_POST_PATH, type AuditPostReply } from '../../protocol/audit/api.js';
import { AUDIT_SCHEMA_VERSION, type AuditEvent } from '../../protocol/audit/schema.js';

export const OUTBOX_DB = 'airlock-audit';
const OUTBOX_STORE = 'outbox';

interface OutboxSchema extends DBSchema {
  outbox: { key: number; value: { event: AuditEvent } };
}

export interface OutboxOptions {
  /** Where to POST batches (default: /api/audit of this page's origin). */
  endpoint?: string;
  /** Headers for each POST (the page token). */
  headers?: () => Record<string, string>;
  /** Events kept at most (default 100,000). */
  maxEvents?: number;
  /** The fetch to use (tests). */
  fetch?: typeof fetch;
  /** Called after each attempt to ship: how many went, how many wait, and the failure if any. */
  onShip?: (result: { shipped: number; waiting: number; error?: string }) => void;
}

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;
/** New events are shipped this long after they arrive (so a burst goes as one batch). */
const SHIP_DELAY_MS = 200;

export class AuditOutbox {
  private pending: AuditEvent[] = [];
  private writing: Promise<void> = Promise.resolve();
  private stored = 0;
  private lost = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retryMs = 0;
  private shipping: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly db: IDBPDatabase<OutboxSchema>,
    private readonly options: OutboxOptions,
  ) {}

  static async open(options: OutboxOptions = {}): Promise<AuditOutbox> {
    const db = await openDB<OutboxSchema>(OUTBOX_DB, 1, {
      upgrade(database) {
        database.createObjectStore(OUTBOX_STORE, { keyPath: 'id', autoIncrement: true });
      },
    });
    const outbox = new AuditOutbox(db, options);
    outbox.stored = await db.count(OUTBOX_STORE);
    if (typeof addEventListener === 'function') addEventListener('online', outbox.shipSoon);
    if (outbox.stored > 0) outbox.schedule(0);
    return outbox;
  }

  /** Events stored and not yet shipped. */
  get waiting(): number {
    return this.stored + this.pending.length;
  }

  /** Keeps `event` (written with others in one transaction) and ships it soon. */
  add(event: AuditEvent): void {
    if (this.closed) return;
    if (this.stored + this.pending.length >= (this.options.maxEvents ?? 100_000)) {
      this.lost.set(event.type, (this.lost.get(event.type) ?? 0) + (event.count ?? 1));
      return;
    }
    this.pending.push(event);
    if (this.pending.length === 1) queueMicrotask(() => void this.write());
    this.schedule(this.retryMs > 0 ? this.retryMs : SHIP_DELAY_MS);
  }

  private write(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const batch = this.pending;
      this.pending = [];
      if (batch.length === 0) return;
      const tx = this.db.transaction(OUTBOX_STORE, 'readwrite');
      await Promise.all([...batch.map((event) => tx.store.add({ event } as never)), tx.done]);
      this.stored += batch.length;
    });
    return this.writing;
  }

  private readonly shipSoon = (): void => {
    this.retryMs = 0;
    this.schedule(0);
  };

  private schedule(ms: number): void {
    if (this.closed || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.ship();
    }, ms);
  }

  /** Ships now, whatever pause a failure asked for (after an attempt in progress). */
  async shipNow(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.retryMs = 0;
    await this.shipping;
    await this.ship();
  }

  /** Ships what is stored now, batch after batch, until done or the server cannot take it. */
  ship(): Promise<void> {
    this.shipping ??= this.shipAll().finally(() => {
      this.shipping = undefined;
    });
    return this.shipping;
  }

  private async shipAll(): Promise<void> {
    await this.write();
    let shipped = 0;
    try {
      for (;;) {
        // Room again after a full outbox: the count of what was lost goes in the same pass.
        if (this.lost.size > 0 && this.stored < (this.options.maxEvents ?? 100_000)) {
          this.storeLost();
          await this.write();
        }
        const tx = this.db.transaction(OUTBOX_STORE, 'readonly');
        const rows = (await tx.store.getAll(undefined, AUDIT_BATCH_MAX)) as Array<{ id: number; event: AuditEvent }>;
        if (rows.length === 0) break;
        await this.post(rows.map((row) => row.event));
        const remove = this.db.transaction(OUTBOX_STORE, 'readwrite');
        await Promise.all([remove.store.delete(IDBKeyRange.bound((rows[0] as { id: number }).id, (rows.at(-1) as { id: number }).id)), remove.done]);
        this.stored -= rows.length;
        shipped += rows.length;
      }
      this.retryMs = 0;
      this.options.onShip?.({ shipped, waiting: this.waiting });
    } catch (error) {
      this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs === 0 ? FIRST_RETRY_MS : this.retryMs * 2);
      this.options.onShip?.({ shipped, waiting: this.waiting, error: error instanceof Error ? error.message : String(error) });
      this.schedule(this.retryMs);
    }
  }

  private async post(events: AuditEvent[]): Promise<AuditPostReply> {
    const endpoint = this.options.endpoint ?? new URL(AUDIT_POST_PATH, globalThis.location?.href ?? 'http://localhost/').href;
    const response = await (this.options.fetch ?? fetch)(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.options.headers?.() ?? {}) },
      body: JSON.stringify({ events }),
    });
    if (!response.ok) {
      const message = await response.json().then((body: { message?: string }) => body.message, () => undefined);
      throw new Error(`the server answered ${response.status}${message === undefined ? '' : `: ${message}`}`);
    }
    return (await response.json()) as AuditPostReply;
  }

  /** The events lost while the outbox was full, as one event (stored like the others). */
  private storeLost(): void {
    const types = Object.fromEntries(this.lost);
    const lost = [...this.lost.values()].reduce((a, b) => a + b, 0);
    this.lost = new Map();
    this.pending.push({
      v: AUDIT_SCHEMA_VERSION,
      type: 'audit.dropped',
      // A page's events belong to a session: the outbox is its own.
      sessionId: 'outbox',
      seq: Date.now(),
      time: new Date().toISOString(),
      source: 'host',
      lost,
      reason: `the page's audit outbox was full (${this.options.maxEvents ?? 100_000} events waiting for the server)`,
      types,
    });
  }

  /** Stops shipping (the stored events stay for the next page). */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (typeof removeEventListener === 'function') removeEventListener('online', this.shipSoon);
    this.db.close();
  }
}
