// Network: the session's policy (what its sandbox may reach) and its requests, newest
// first — every hop the host or the server's gateway decided, allowed or refused with the
// reason — from the page's audit events (network.decision).

import { useMemo, useSyncExternalStore } from 'react';
import type { AuditEventOf } from '../../../protocol/audit/schema.js';
import type { PanelContext } from '../panel.js';
import { playgroundReason } from './reason.js';

const SHOWN = 300;

type Decision = AuditEventOf<'network.decision'>;

export function NetworkPanel({ controller, view }: PanelContext) {
  const audit = controller.audit;
  const { events } = useSyncExternalStore(audit.subscribe, audit.getState);
  const decisions = useMemo(() => events.filter((e): e is Decision => e.type === 'network.decision').slice(-SHOWN).reverse(), [events]);
  const allowed = view.settings.networkAllow;
  return (
    <div className="network-panel">
      <p className="network-policy" data-testid="network-policy">
        {allowed.length === 0 ? 'Policy: no network (default deny). Allow hosts in Settings.' : `Policy: strict — ${allowed.join(', ')}. Loopback and private addresses only by an exact host:port entry.`}
      </p>
      {decisions.length === 0 ? (
        <p className="network-empty">No requests yet. Try <code>curl -sI https://example.com/</code> in the terminal.</p>
      ) : (
        <ol className="network-requests" aria-label="Requests">
          {decisions.map((d) => (
            <li key={`${d.sessionId}-${d.seq}`} className={d.allowed ? 'network-allowed' : 'network-refused'} data-allowed={d.allowed ? 'true' : 'false'}>
              <span className="network-verdict">{d.allowed ? 'allowed' : 'refused'}</span> <code>{d.method}</code> <span className="network-url">{d.url}</span>
              <span className="network-enforcer" title="who decided"> · {d.enforcer}</span>
              {d.reason === null ? null : <div className="network-reason">{playgroundReason(d.reason, d.rule)}</div>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
