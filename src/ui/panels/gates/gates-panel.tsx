// Gates: the server's gate runs; one run's attempts as a timeline, each with its signals
// (passed or failed, with the detail the ledger keeps) and its evidence (sandbox run, cost).

import { useEffect, useState } from 'react';
import type { PanelContext } from '../panel.js';
import { describePlacement, getGateRun, listGateRuns, parseSignalLine, type GateRunDetail, type GateRunSummary } from './gate-runs.js';

function Attempt({ attempt, executedOn }: { attempt: GateRunDetail['attempts'][number]; executedOn: GateRunDetail['executedOn'] }) {
  return (
    <li className={attempt.passed ? 'gate-attempt gate-passed' : 'gate-attempt gate-failed'} data-attempt={attempt.attempt}>
      <div className="gate-attempt-head">
        <strong>Attempt {attempt.attempt}</strong> {attempt.passed ? 'passed' : 'failed'}
        <time dateTime={attempt.time}>{new Date(attempt.time).toLocaleTimeString()}</time>
      </div>
      {attempt.priorFailureSummary !== null ? <div className="gate-prior">given: {attempt.priorFailureSummary}</div> : null}
      <ul className="gate-signals">
        {attempt.signals.map((line) => {
          const signal = parseSignalLine(line);
          return (
            <li key={line} data-signal={signal.kind} data-passed={signal.passed ? 'true' : 'false'}>
              <span className="gate-signal-kind">{signal.kind}</span> {signal.passed ? '✓' : '✗'} {signal.detail}
            </li>
          );
        })}
      </ul>
      <div className="gate-evidence">
        sandbox run {attempt.sandboxRunId ?? '—'} · {attempt.cost.vmSeconds.toFixed(1)} s · {attempt.cost.bytesIn.toLocaleString()} bytes in, {attempt.cost.bytesOut.toLocaleString()} out ·{' '}
        <span className="gate-executed-on">ran {describePlacement(attempt.sandboxRunId, executedOn)}</span>
      </div>
    </li>
  );
}

export function GatesPanel(_context: PanelContext) {
  const [runs, setRuns] = useState<GateRunSummary[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [detail, setDetail] = useState<GateRunDetail | null>(null);
  useEffect(() => {
    listGateRuns().then((body) => setRuns(body.runs), (e: Error) => setError(e.message));
  }, []);
  useEffect(() => {
    if (selected === null) return;
    getGateRun(selected).then(setDetail, (e: Error) => setError(e.message));
  }, [selected]);
  return (
    <>
      {error !== null ? <p className="panel-error">{error}</p> : null}
      <p className="panel-note">Gate runs on this server (start one with `airlock gate run` or POST /api/gates/runs).</p>
      <ul className="gate-runs">
        {runs.map((run) => (
          <li key={run.gateRunId} data-gate-run-id={run.gateRunId}>
            <button type="button" onClick={() => setSelected(run.gateRunId)} aria-pressed={selected === run.gateRunId}>
              {run.gateId} · {run.outcome ?? 'running'} · {run.attempts ?? 0} attempts · {new Date(run.startedAt).toLocaleString()}
            </button>
          </li>
        ))}
      </ul>
      {detail !== null ? (
        <section className="gate-run" data-gate-run={detail.manifest.gateRunId}>
          <h3>
            {detail.manifest.gateId}: {detail.manifest.outcome ?? 'running'}
          </h3>
          {detail.manifest.reason ? <p>{detail.manifest.reason}</p> : null}
          <ol className="gate-timeline">
            {detail.attempts.map((attempt) => (
              <Attempt key={attempt.attemptId} attempt={attempt} executedOn={detail.executedOn} />
            ))}
          </ol>
          {detail.escalation !== null ? <p className="panel-error">Escalated to a human after {detail.escalation.attempts} attempts: {detail.escalation.reason}</p> : null}
        </section>
      ) : null}
    </>
  );
}
