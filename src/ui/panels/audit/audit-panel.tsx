// Audit: the events of this page's sandboxes (newest first), filterable by type, refusals
// highlighted; and whether they reached the server or wait in the browser.

import { useMemo, useState, useSyncExternalStore } from 'react';
import { AUDIT_EVENT_TYPES, isRefusal, type AuditEvent, type AuditEventType } from '../../../protocol/audit/schema.js';
import { eventFields } from '../../../host/audit/format.js';
import type { PanelContext } from '../panel.js';

/** Shown at most (the newest); the filter narrows before the cut. */
const SHOWN = 500;

function AuditRow({ event }: { event: AuditEvent }) {
  const refusal = isRefusal(event);
  const count = event.count !== undefined && event.count !== 1 ? ` ×${event.count.toLocaleString()}` : '';
  return (
    <li className={refusal ? 'audit-event audit-refusal' : 'audit-event'} data-type={event.type} data-refusal={refusal ? 'true' : undefined}>
      <div className="audit-head">
        <span className="audit-type">{event.type}</span>
        {count ? <span className="audit-count">{count}</span> : null}
        {event.source === 'sandbox-reported' ? <span className="audit-source" title="reported by the sandbox, which is not trusted to tell the truth">reported</span> : null}
        <time dateTime={event.time} title={event.time}>{new Date(event.time).toLocaleTimeString()}</time>
      </div>
      <div className="audit-fields">{eventFields(event)}</div>
    </li>
  );
}

export function AuditPanel({ controller }: PanelContext) {
  const audit = controller.audit;
  const { events, ship } = useSyncExternalStore(audit.subscribe, audit.getState);
  const [type, setType] = useState<string>('');
  const [onlyRefusals, setOnlyRefusals] = useState(false);
  const present = useMemo(() => [...new Set(events.map((e) => e.type))].sort(), [events]);
  const shown = useMemo(() => {
    const chosen = events.filter((e) => (type === '' || e.type === type) && (!onlyRefusals || isRefusal(e)));
    return chosen.slice(-SHOWN).reverse();
  }, [events, type, onlyRefusals]);
  const refusals = useMemo(() => events.filter((e) => isRefusal(e)).reduce((sum, e) => sum + (e.count ?? 1), 0), [events]);
  return (
    <>
      <p className="panel-note">
        {events.length.toLocaleString()} events, {refusals.toLocaleString()} refusals.{' '}
        {ship.error !== null ? <span className="panel-error" data-testid="audit-ship-state">{ship.waiting.toLocaleString()} kept in this browser until the server can take them ({ship.error}).</span> : <span data-testid="audit-ship-state">Sent to the server.</span>}
      </p>
      <div className="panel-actions">
        <label className="inline">
          Type{' '}
          <select value={type} onChange={(e) => setType(e.target.value)} aria-label="Filter by type">
            <option value="">all</option>
            {present.map((name) => (
              <option key={name} value={name} title={AUDIT_EVENT_TYPES[name as AuditEventType]?.summary}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          <input type="checkbox" checked={onlyRefusals} onChange={(e) => setOnlyRefusals(e.target.checked)} /> refusals only
        </label>
        {ship.error !== null ? <button onClick={() => void audit.shipNow()}>Send now</button> : null}
      </div>
      {shown.length === 0 ? <p className="panel-note">No events{type === '' ? '' : ` of type ${type}`}.</p> : null}
      <ul className="audit-events">
        {shown.map((event) => (
          <AuditRow key={`${event.sessionId}:${event.seq}`} event={event} />
        ))}
      </ul>
    </>
  );
}
