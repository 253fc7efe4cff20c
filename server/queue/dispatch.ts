// Dispatch of sandbox runs to remote workers, behind the one backend contract: a
// QueueSandboxClient is a SandboxClient whose execute() packs the spec's copy-ins as
// hash-named artifacts, enqueues a job and waits for the worker's result at the result
// endpoint. The gate runner above it is unchanged, so the ledger is still written in one
// place, on the server, once per attempt.

import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { BackendName, ExecuteOptions, SandboxClient, SandboxHealth, SandboxRun, SandboxSpec } from '../backends/contract.js';
import { SandboxRunFailed, SandboxSpecError } from '../backends/errors.js';
import { defaultGatesDir } from '../backends/run-dir.js';
import { packTree } from './artifacts.js';
import { listWorkers } from './fleet.js';
import { GateQueue } from './producer.js';
import { QUEUE_PROTOCOL_VERSION, newRunToken, queueName, type GateJob } from './protocol.js';
import { parseQueueUrl, type QueueAddress } from './queue-url.js';
import { RemoteRuns } from './remote-runs.js';

export interface QueueDispatch {
  address: QueueAddress;
  queue: GateQueue;
  runs: RemoteRuns;
  /** Base URL of this process's run endpoints, as workers reach it. */
  endpoint(): string;
  client(backend: BackendName): SandboxClient;
  close(): Promise<void>;
}

export interface DispatchOptions {
  url: string;
  endpoint: () => string;
  /** Where workspace artifacts are packed while their run waits (default: the system's temp dir). */
  scratchRoot?: string;
}

export function createQueueDispatch(options: DispatchOptions): QueueDispatch {
  const address = parseQueueUrl(options.url);
  const queue = new GateQueue(address);
  const runs = new RemoteRuns();
  const scratchRoot = options.scratchRoot ?? tmpdir();
  queue.onFailed((jobId, reason) => {
    const run = runs.get(jobId);
    if (run !== undefined) runs.fail(run, new SandboxRunFailed(`queue job ${jobId} failed on its last delivery: ${reason}`));
  });
  const dispatch: QueueDispatch = {
    address, queue, runs, endpoint: options.endpoint,
    client: (backend) => new QueueSandboxClient(backend, dispatch, scratchRoot),
    async close() {
      runs.closeAll('the server is closing: queued gate runs are abandoned');
      await queue.close();
    },
  };
  return dispatch;
}

function gateIdOf(label: string): string {
  const id = /^(.*)-attempt-\d+$/.exec(label)?.[1] ?? '';
  return /^[a-z0-9][a-z0-9_-]{0,63}$/.test(id) ? id : 'sandbox';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export class QueueSandboxClient implements SandboxClient {
  constructor(
    readonly backend: BackendName,
    private readonly dispatch: QueueDispatch,
    private readonly scratchRoot: string,
  ) {}

  /** Reachable while the queue answers; degraded (a reason) when no live worker serves the backend: jobs wait. */
  async health(): Promise<SandboxHealth> {
    const details: Record<string, string> = { queue: this.dispatch.address.display };
    try {
      const workers = await listWorkers(this.dispatch.address);
      const serving = workers.filter((worker) => worker.backends.includes(this.backend));
      details.workers = String(serving.length);
      const declined = workers.flatMap((worker) => (worker.declined[this.backend] === undefined ? [] : [`${worker.workerId}: ${worker.declined[this.backend] ?? ''}`]));
      const reasons = serving.length > 0 ? [] : [`no live worker serves ${this.backend} yet: its jobs wait in ${queueName(this.backend)}${declined.length > 0 ? ` (declined by ${declined.join('; ')})` : ''}`];
      return { backend: this.backend, reachable: true, version: `queue v${QUEUE_PROTOCOL_VERSION}`, reasons, details };
    } catch (error) {
      return { backend: this.backend, reachable: false, version: null, reasons: [`the queue ${this.dispatch.address.display} does not answer: ${(error as Error).message}`], details };
    }
  }

  async execute(spec: SandboxSpec, options: ExecuteOptions = {}): Promise<SandboxRun> {
    const runsDir = options.runsDir ?? join(defaultGatesDir(), 'sandbox-runs');
    mkdirSync(runsDir, { recursive: true });
    mkdirSync(this.scratchRoot, { recursive: true });
    const scratchDir = mkdtempSync(join(this.scratchRoot, 'airlock-queue-run-'));
    const jobId = uuidv7();
    const token = newRunToken();
    let artifacts;
    try {
      artifacts = [];
      for (const [index, copyIn] of spec.copyIn.entries()) {
        if (!statSync(copyIn.hostPath).isDirectory()) throw new SandboxSpecError(`copyIn ${copyIn.hostPath}: a queued run copies in directories only (not supported: a single file)`);
        artifacts.push(await packTree(copyIn.hostPath, join(scratchDir, `artifact-${index}.tar`)));
      }
    } catch (error) {
      rmSync(scratchDir, { recursive: true, force: true });
      throw error;
    }
    const parentId = join(runsDir, '..').split('/').at(-1) ?? '';
    const job: GateJob = {
      v: QUEUE_PROTOCOL_VERSION, jobId, gateRunId: UUID.test(parentId) ? parentId : jobId, gateId: gateIdOf(spec.label),
      attempt: Math.max(1, Math.min(10, Number(spec.env.AIRLOCK_GATE_ATTEMPT ?? '1') || 1)), backend: this.backend, spec,
      artifacts: artifacts.map((artifact, index) => ({ index, sha256: artifact.sha256, bytes: artifact.bytes })),
      endpoint: this.dispatch.endpoint(), token, enqueuedAt: new Date().toISOString(),
    };
    const result = new Promise<SandboxRun>((resolve, reject) => {
      this.dispatch.runs.add({ jobId, token, backend: this.backend, spec, artifacts, scratchDir, runsDir, options, state: 'queued', deliveries: [], worker: null, resultFrom: null, resolve, reject });
    });
    const run = this.dispatch.runs.get(jobId);
    try {
      await this.dispatch.queue.enqueue(job);
    } catch (error) {
      if (run !== undefined) this.dispatch.runs.fail(run, new SandboxRunFailed(`could not enqueue on ${this.dispatch.address.display}: ${(error as Error).message}`));
      return result;
    }
    options.onProgress?.({ runId: jobId, message: `queued as job ${jobId} on ${queueName(this.backend)}` });
    options.signal?.addEventListener('abort', () => {
      void this.dispatch.queue.cancel(this.backend, jobId).catch(() => undefined);
      if (run !== undefined && run.state === 'queued') this.dispatch.runs.fail(run, new SandboxRunFailed(`job ${jobId} was cancelled before a worker took it`));
    }, { once: true });
    return result;
  }
}
