// The gate runs the server keeps (server/gates/service), as the panel reads them: the list,
// one run with its attempts, and each ledger signal line split into kind, verdict, detail.

import { pageHeaders } from '../../../host/browser/page-token.js';

export const GATES_RUNS_PATH = '/api/gates/runs';

export interface GateRunSummary {
  gateRunId: string;
  gateId: string;
  backend: string;
  startedAt: string;
  endedAt?: string;
  outcome?: 'passed' | 'failed' | 'escalated';
  reason?: string;
  attempts?: number;
}

export interface GateAttempt {
  attempt: number;
  attemptId: string;
  time: string;
  passed: boolean;
  summary: string;
  signals: string[];
  failureSummary: string | null;
  priorFailureSummary: string | null;
  sandboxRunId: string | null;
  cost: { vmSeconds: number; bytesIn: number; bytesOut: number };
}

/** Where a sandbox run executed, when a queue worker ran it (server/queue/placement.ts). */
export interface ExecutedOn {
  workerId: string;
  host: string;
  version: string;
  jobId: string;
  deliveries: Array<{ workerId: string; sandboxRunId: string; at: string }>;
}

export interface GateRunDetail {
  manifest: GateRunSummary;
  attempts: GateAttempt[];
  /** sandboxRunId → the worker that ran it; a run not listed ran in-process on the server. */
  executedOn?: Record<string, ExecutedOn>;
  escalation: { reason: string; attempts: number } | null;
  done: boolean;
}

export interface SignalView {
  kind: string;
  passed: boolean;
  detail: string;
}

/** "tests:failed: 1 of 2 failed" → { kind: 'tests', passed: false, detail: '1 of 2 failed' }. */
export function parseSignalLine(line: string): SignalView {
  const match = /^([a-z]+):(passed|failed)(?:: ([\s\S]*))?$/.exec(line);
  if (match === null) return { kind: '?', passed: false, detail: line };
  return { kind: match[1] as string, passed: match[2] === 'passed', detail: match[3] ?? '' };
}

/** "in-process" or "worker W on HOST", with earlier deliveries (a worker lost mid-run) named. */
export function describePlacement(sandboxRunId: string | null, executedOn: GateRunDetail['executedOn']): string {
  const placement = sandboxRunId === null ? undefined : executedOn?.[sandboxRunId];
  if (placement === undefined) return 'in-process on the server';
  const earlier = placement.deliveries.map((d) => d.workerId).filter((id) => id !== placement.workerId);
  return `worker ${placement.workerId} on ${placement.host}${earlier.length > 0 ? ` (taken over from ${[...new Set(earlier)].join(', ')})` : ''}`;
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: pageHeaders() });
  const body = (await response.json()) as T & { message?: string };
  if (!response.ok) throw new Error(body.message ?? `${path}: ${response.status}`);
  return body;
}

export function listGateRuns(): Promise<{ runs: GateRunSummary[] }> {
  return getJson(GATES_RUNS_PATH);
}

export function getGateRun(id: string): Promise<GateRunDetail> {
  return getJson(`${GATES_RUNS_PATH}/${encodeURIComponent(id)}`);
}
