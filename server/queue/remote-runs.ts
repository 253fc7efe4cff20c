// The server's side of the runs it has queued: each run's token, its workspace artifacts
// and the execute() waiting for it. A run takes exactly one result: the first complete,
// hash-checked upload wins; any later one (a job delivered twice — a worker that stalled but
// was not dead, or died after uploading and before BullMQ heard) is answered 409 and
// changes nothing, so the gate's ledger records the attempt once.

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BackendName, ExecuteOptions, SandboxRun, SandboxSpec } from '../backends/contract.js';
import type { PackedArtifact } from './artifacts.js';
import { tokensEqual } from './protocol.js';

/** Where a run executed, kept beside its sandbox run (`executed-on.json`) for the gates view. */
export interface Placement {
  workerId: string;
  host: string;
  version: string;
  jobId: string;
  /** Workers that started it (more than one when a worker died mid-run and another took over). */
  deliveries: Array<{ workerId: string; sandboxRunId: string; at: string }>;
}

export const PLACEMENT_FILE = 'executed-on.json';

export type RunState = 'queued' | 'running' | 'receiving' | 'done';

export interface RemoteRun {
  jobId: string;
  token: string;
  backend: BackendName;
  spec: SandboxSpec;
  artifacts: PackedArtifact[];
  /** Holds the artifacts; removed when the run settles. */
  scratchDir: string;
  runsDir: string;
  options: ExecuteOptions;
  state: RunState;
  deliveries: Placement['deliveries'];
  worker: { workerId: string; host: string; version: string } | null;
  /** Who delivered the accepted result (for the 409 of a duplicate). */
  resultFrom: string | null;
  resolve(run: SandboxRun): void;
  reject(error: Error): void;
}

export class RunAuthError extends Error {
  constructor(
    readonly statusCode: 401 | 403 | 404,
    message: string,
  ) {
    super(message);
    this.name = 'RunAuthError';
  }
}

/** How long a settled run still answers a late duplicate with 409 (then 404). */
const SETTLED_MEMORY_MS = 60 * 60 * 1000;

export class RemoteRuns {
  private readonly runs = new Map<string, RemoteRun>();

  add(run: RemoteRun): void {
    this.runs.set(run.jobId, run);
  }

  get(jobId: string): RemoteRun | undefined {
    return this.runs.get(jobId);
  }

  /** Runs still waiting for their result. */
  unsettled(): RemoteRun[] {
    return [...this.runs.values()].filter((run) => run.state !== 'done');
  }

  get pending(): number {
    return [...this.runs.values()].filter((run) => run.state !== 'done').length;
  }

  /** The run `jobId` if `authorization` carries its token; the token of any other run opens nothing. */
  authorize(jobId: string, authorization: string | undefined): RemoteRun {
    const token = /^Bearer ([A-Za-z0-9_-]+)$/.exec(authorization ?? '')?.[1];
    if (token === undefined) throw new RunAuthError(401, 'a run endpoint needs its run token (Authorization: Bearer TOKEN)');
    const run = this.runs.get(jobId);
    if (run === undefined || !tokensEqual(token, run.token)) throw new RunAuthError(run === undefined ? 404 : 403, run === undefined ? `no queued run ${jobId}` : `the token is not run ${jobId}'s`);
    return run;
  }

  /** A worker started the run: the ledger's sandbox.run_started (once per delivery). */
  started(run: RemoteRun, event: { sandboxRunId: string; workerId: string; host: string; version: string }): void {
    run.state = run.state === 'queued' ? 'running' : run.state;
    run.worker = { workerId: event.workerId, host: event.host, version: event.version };
    run.deliveries.push({ workerId: event.workerId, sandboxRunId: event.sandboxRunId, at: new Date().toISOString() });
    run.options.onStarted?.({ runId: event.sandboxRunId });
  }

  /** Settles the run with its one result and records where it ran. */
  settle(run: RemoteRun, result: SandboxRun, workerId: string): void {
    run.state = 'done';
    run.resultFrom = workerId;
    const worker = run.worker?.workerId === workerId ? run.worker : { workerId, host: 'unknown', version: 'unknown' };
    const placement: Placement = { ...worker, jobId: run.jobId, deliveries: run.deliveries };
    writeFileSync(join(run.runsDir, result.runId, PLACEMENT_FILE), JSON.stringify(placement, null, 2) + '\n');
    this.release(run);
    run.resolve(result);
  }

  fail(run: RemoteRun, error: Error): void {
    if (run.state === 'done') return;
    run.state = 'done';
    this.release(run);
    run.reject(error);
  }

  private release(run: RemoteRun): void {
    rmSync(run.scratchDir, { recursive: true, force: true });
    run.artifacts = [];
    setTimeout(() => this.runs.delete(run.jobId), SETTLED_MEMORY_MS).unref();
  }

  /** Fails every run still waiting (the server is closing). */
  closeAll(reason: string): void {
    for (const run of this.runs.values()) this.fail(run, new Error(reason));
    this.runs.clear();
  }
}
