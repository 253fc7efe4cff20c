// One event as one line of text, for `airlock audit tail`/`query` and the playground panel:
//   2026-01-31T12:00:00.123Z sb-1a2b3c4d5e6f7a8b ! tool.refused ×3 runId=2 tool=curl
// `!` marks refusals; `×N` a coalesced event standing for N occurrences.

import { isRefusal, type AuditEvent } from '../../protocol/audit/schema.js';

const BASE = new Set(['v', 'type', 'sessionId', 'seq', 'time', 'source', 'count', 'lastTime']);

function value(item: unknown): string {
  if (typeof item === 'string') return /^[\w./:@-]+$/.test(item) && item.length > 0 ? item : JSON.stringify(item);
  return JSON.stringify(item);
}

/** The fields a type adds, as `name=value` pairs. */
export function eventFields(event: AuditEvent): string {
  return Object.entries(event)
    .filter(([name]) => !BASE.has(name))
    .map(([name, item]) => `${name}=${value(item)}`)
    .join(' ');
}

export function formatEvent(event: AuditEvent): string {
  const mark = isRefusal(event) ? '!' : ' ';
  const count = event.count !== undefined && event.count !== 1 ? ` ×${event.count}` : '';
  const source = event.source === 'host' ? '' : ` [${event.source}]`;
  const fields = eventFields(event);
  return `${event.time} ${event.sessionId ?? '-'} ${mark} ${event.type}${count}${source}${fields ? ` ${fields}` : ''}`;
}
