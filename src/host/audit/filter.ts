// Which events a reader wants: by type (exact or `prefix*`), session and time. Shared by
// `airlock audit query`, the server's query API and the playground panel.

import type { AuditEvent } from '../../protocol/audit/schema.js';

export interface EventFilter {
  /** Exact types, or prefixes ending in `*` (`sandbox.*`). */
  types?: string[];
  sessionId?: string;
  /** ISO times: events at or after `since`, before `until`. */
  since?: string;
  until?: string;
}

export function matchesFilter(event: AuditEvent, filter: EventFilter): boolean {
  if (filter.sessionId !== undefined && event.sessionId !== filter.sessionId) return false;
  if (filter.since !== undefined && (event.lastTime ?? event.time) < filter.since) return false;
  if (filter.until !== undefined && event.time >= filter.until) return false;
  if (filter.types !== undefined && filter.types.length > 0) {
    return filter.types.some((type) => (type.endsWith('*') ? event.type.startsWith(type.slice(0, -1)) : event.type === type));
  }
  return true;
}

/** `30s`, `10m`, `2h`, `7d` before `now`, or an ISO date/time, as an ISO time. */
export function parseSince(text: string, now = Date.now()): string | undefined {
  const relative = /^(\d+)(s|m|h|d)$/.exec(text);
  if (relative !== null) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(now - Number(relative[1]) * unit).toISOString();
  }
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
