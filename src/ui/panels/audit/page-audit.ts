// The page's audit trail: every event of the page's sandboxes, kept in memory for the audit
// panel (the newest RECENT_EVENTS) and handed to the outbox, which keeps them in IndexedDB
// until the server has them. The playground's controller owns one and passes `listener` as
// each sandbox's onAuditEvent.

import type { AuditEvent } from '../../../protocol/audit/schema.js';
import { AuditOutbox } from '../../../host/audit/browser-outbox.js';
import { pageHeaders } from '../../../host/browser/page-token.js';

/** Events the panel can list (older ones are in the outbox or on the server). */
export const RECENT_EVENTS = 5000;

export interface ShipState {
  /** Events stored in the browser, waiting for the server. */
  waiting: number;
  /** Why the last attempt failed (the server is unreachable), or null. */
  error: string | null;
}

/** What the panel renders: a new object after every change (React compares it). */
export interface PageAuditState {
  /** The events of this page, oldest first. */
  events: readonly AuditEvent[];
  ship: ShipState;
}

export class PageAudit {
  private listeners = new Set<() => void>();
  private outbox: AuditOutbox | undefined;
  private early: AuditEvent[] = [];
  state: PageAuditState = { events: [], ship: { waiting: 0, error: null } };

  private opening = false;

  /**
   * Opens the outbox (its own IndexedDB database) and hands it what came before; the
   * controller calls it once the sandbox is ready, so that its open is not in the
   * way of the workspace's read. Once per page.
   */
  openOutbox(): void {
    if (this.opening || typeof indexedDB === 'undefined') return;
    this.opening = true;
    AuditOutbox.open({
      headers: () => pageHeaders(),
      onShip: ({ waiting, error }) => this.changed({ ship: { waiting, error: error ?? null } }),
    }).then(
      (outbox) => {
        this.outbox = outbox;
        for (const event of this.early) outbox.add(event);
        this.early = [];
      },
      () => undefined,
    );
  }

  /** A sandbox's onAuditEvent. */
  readonly listener = (event: AuditEvent): void => {
    const recent = this.state.events;
    if (this.outbox !== undefined) this.outbox.add(event);
    else this.early.push(event);
    this.changed({ events: recent.length >= RECENT_EVENTS ? [...recent.slice(1 - RECENT_EVENTS), event] : [...recent, event] });
  };

  getState = (): PageAuditState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private changed(patch: Partial<PageAuditState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  /** Ships what waits now (the panel's "Send now"). */
  async shipNow(): Promise<void> {
    await this.outbox?.shipNow();
  }
}
