// The server's audit API, shared by the browser (which ships its sandboxes' events) and the
// server (docs/audit.md, "The server API"). Both routes want the page token: only pages the
// server served may post or read events.
//
//   POST /api/audit          {"events": [event, …]}  →  {"accepted": n, "duplicates": m}
//     At most AUDIT_BATCH_MAX events; all are checked before any is kept (400 names the
//     first bad one). Pages may send only `host` and `sandbox-reported` events. An event whose
//     (sessionId, seq) the server already has is a duplicate (a batch sent again after a
//     lost answer) and is skipped.
//   GET /api/audit/events?session=&type=&since=&until=&after=&limit=
//     →  {"events": [{"n": …, "event": …}, …], "next": <after for the next page> | null}

export const AUDIT_POST_PATH = '/api/audit';
export const AUDIT_EVENTS_PATH = '/api/audit/events';
/** Most events one POST may carry. */
export const AUDIT_BATCH_MAX = 1000;
/** Largest POST body. */
export const AUDIT_POST_MAX_BYTES = 1024 * 1024;
/** Most events one query page returns (and its default). */
export const AUDIT_QUERY_MAX = 1000;
export const AUDIT_QUERY_DEFAULT = 100;

export interface AuditPostReply {
  accepted: number;
  duplicates: number;
}
