// `airlock gate worker`: takes gate runs from the queue and runs them on this machine. Per
// backend asked for, it checks health first and declines (with the reason, in its heartbeat
// record) a backend it cannot run; it listens only on the queues of the backends it serves.
// Per job: check the payload and the spec against the contract, fetch the workspace
// artifacts (size-capped, SHA-256 checked), run, post the result tar, remove the job's
// directory. BullMQ's lock and stalled-job check hand a dead worker's job to another; the
// server takes one result per run, so a duplicate delivery changes nothing.

import { mkdtempSync, rmSync, createReadStream } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { request } from 'undici';
import { v7 as uuidv7 } from 'uuid';
import type { BackendName, SandboxClient, SandboxSpec } from '../backends/contract.js';
import { createSandboxClient, egressProxyWithSecrets } from '../backends/registry.js';
import { parseSandboxSpec } from '../backends/spec.js';
import type { SecretBinding } from '../../src/host/network/secrets.js';
import { GATE_LIMITS } from '../../src/protocol/limits.js';
import { receiveArtifact, unpackTar } from './artifacts.js';
import { WorkerHeartbeat, type WorkerRecord } from './fleet.js';
import { QUEUE_LIMITS, QUEUE_PREFIX, SHA256_HEADER, WORKER_HEADER, artifactPath, eventsPath, jobProblem, queueName, resultPath, type GateJob, type WorkerEvent } from './protocol.js';
import { parseQueueUrl, type QueueAddress } from './queue-url.js';
import { packRunResult } from './run-result.js';
import { claimWorkDir, defaultWorkRoot, sweepOrphans } from './work-dir.js';

export const AIRLOCK_VERSION = '0.1.0';

export interface GateWorkerOptions {
  url: string;
  backends: BackendName[];
  concurrency: number;
  /** Root of the workers' scratch directories (default: $TMPDIR/airlock-gate-worker). */
  workRoot?: string;
  workerId?: string;
  /** BullMQ's lock on a running job, renewed at half of it; a dead worker's job is free after it. */
  lockDurationMs?: number;
  /** How often a worker checks for stalled jobs (those whose lock ran out). */
  stalledIntervalMs?: number;
  /** Stalls a job survives before it fails (each is a worker lost mid-run). */
  maxStalledCount?: number;
  heartbeatMs?: number;
  /** The backend clients (default: this machine's). */
  clientFor?: (backend: BackendName) => SandboxClient;
  /**
   * This machine's secrets, added by its egress proxy to the scoped runs' requests for their
   * bound hosts. Jobs never carry secrets (a spec asking for one in its env is refused).
   */
  secrets?: readonly SecretBinding[];
  log?: (line: string) => void;
}

export interface JobOutcome {
  sandboxRunId: string | null;
  /** The run already had a result (a duplicate delivery): nothing ran. */
  duplicate: boolean;
}

class RunEndpointError extends Error {
  override name = 'RunEndpointError';
}

class DuplicateDelivery extends Error {
  override name = 'DuplicateDelivery';
}

export class GateWorker {
  readonly workerId: string;
  readonly address: QueueAddress;
  readonly declined: Partial<Record<BackendName, string>> = {};
  readonly served: BackendName[] = [];
  private readonly versions: Partial<Record<BackendName, string>> = {};
  private readonly clients = new Map<BackendName, SandboxClient>();
  private readonly workers: Worker[] = [];
  private heartbeat: WorkerHeartbeat | undefined;
  private workDir = '';
  private active = 0;
  private completed = 0;
  private readonly startedAt = new Date().toISOString();

  constructor(private readonly options: GateWorkerOptions) {
    this.address = parseQueueUrl(options.url);
    this.workerId = options.workerId ?? `${hostname()}-${process.pid}-${uuidv7().slice(-8)}`;
  }

  private log(line: string): void {
    (this.options.log ?? ((text: string) => process.stderr.write(`${text}\n`)))(`airlock gate worker ${this.workerId}: ${line}`);
  }

  record(): Omit<WorkerRecord, 'lastHeartbeat'> {
    return {
      workerId: this.workerId, host: hostname(), pid: process.pid, version: `airlock ${AIRLOCK_VERSION}, node ${process.versions.node}`,
      backends: [...this.served], backendVersions: { ...this.versions }, declined: { ...this.declined },
      concurrency: this.options.concurrency, active: this.active, completed: this.completed, startedAt: this.startedAt,
    };
  }

  /** Checks each backend, declines those it cannot run, and starts taking jobs for the rest. */
  async start(): Promise<void> {
    const root = this.options.workRoot ?? defaultWorkRoot();
    for (const dir of sweepOrphans(root, this.workerId)) this.log(`removed ${dir}, left by a worker that is gone`);
    this.workDir = claimWorkDir(root, this.workerId);
    for (const backend of this.options.backends) {
      const client = this.options.clientFor?.(backend) ?? createSandboxClient(backend, { runsDir: this.workDir, egressProxy: egressProxyWithSecrets(this.options.secrets) });
      const health = await client.health();
      if (!health.reachable) {
        this.declined[backend] = health.reasons.join('; ') || 'health check failed';
        this.log(`declining ${backend}: ${this.declined[backend] ?? ''}`);
        continue;
      }
      this.clients.set(backend, client);
      this.served.push(backend);
      this.versions[backend] = health.version ?? 'unknown';
    }
    const lockDuration = this.options.lockDurationMs ?? 30_000;
    for (const backend of this.served) {
      const worker = new Worker<GateJob, JobOutcome>(queueName(backend), (job) => this.process(backend, job), {
        connection: { ...this.address.redis }, prefix: QUEUE_PREFIX, concurrency: this.options.concurrency,
        lockDuration, stalledInterval: this.options.stalledIntervalMs ?? Math.max(1000, lockDuration), maxStalledCount: this.options.maxStalledCount ?? 2,
        name: this.workerId,
      });
      worker.on('error', (error) => this.log(`queue: ${error.message}`));
      worker.on('failed', (job, error) => this.log(`job ${job?.id ?? '?'} failed: ${error.message}`));
      this.workers.push(worker);
    }
    const heartbeatMs = this.options.heartbeatMs ?? 5000;
    this.heartbeat = new WorkerHeartbeat(this.address, () => {
      for (const dir of sweepOrphans(root, this.workerId)) this.log(`removed ${dir}, left by a worker that is gone`);
      return this.record();
    }, heartbeatMs);
    await this.heartbeat.start();
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
    this.log(`serving ${this.served.join(', ') || 'nothing'} on ${this.address.display} (concurrency ${this.options.concurrency})`);
  }

  /** Stops taking jobs, lets running ones finish, drops out of the fleet. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    await this.heartbeat?.stop();
    rmSync(this.workDir, { recursive: true, force: true });
  }

  private async process(backend: BackendName, job: Job<GateJob, JobOutcome>): Promise<JobOutcome> {
    const problem = jobProblem(job.data);
    if (problem !== undefined) throw new UnrecoverableError(`refused: ${problem}`);
    const data = job.data;
    let spec: SandboxSpec;
    try {
      spec = parseSandboxSpec(data.spec);
    } catch (error) {
      throw new UnrecoverableError(`refused: the spec does not satisfy the contract: ${(error as Error).message}`);
    }
    if (data.backend !== backend) throw new UnrecoverableError(`refused: a ${data.backend} job on the ${backend} queue`);
    if (data.artifacts.length !== spec.copyIn.length) throw new UnrecoverableError(`refused: ${data.artifacts.length} artifacts for ${spec.copyIn.length} copy-ins`);
    const client = this.clients.get(backend);
    if (client === undefined) throw new Error(`declined: this worker does not run ${backend}`);
    this.active += 1;
    const dir = mkdtempSync(join(this.workDir, 'job-'));
    try {
      return await this.run(data, spec, client, dir);
    } catch (error) {
      if (error instanceof DuplicateDelivery) {
        this.log(`job ${data.jobId}: ${error.message}`);
        return { sandboxRunId: null, duplicate: true };
      }
      throw error;
    } finally {
      this.active -= 1;
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private headers(data: GateJob): Record<string, string> {
    return { authorization: `Bearer ${data.token}`, [WORKER_HEADER]: this.workerId };
  }

  private async run(data: GateJob, spec: SandboxSpec, client: SandboxClient, dir: string): Promise<JobOutcome> {
    const copyIn = [];
    for (const artifact of data.artifacts) {
      const target = spec.copyIn[artifact.index];
      if (target === undefined) throw new UnrecoverableError(`refused: artifact ${artifact.index} names no copy-in`);
      const tree = join(dir, `in-${artifact.index}`);
      await this.fetchArtifact(data, artifact.index, artifact.sha256, artifact.bytes, join(dir, `in-${artifact.index}.tar`), tree);
      copyIn.push({ ...target, hostPath: tree });
    }
    const { specHash: _serverHash, ...fields } = spec;
    const local = parseSandboxSpec({ ...fields, copyIn });
    const posts: Array<Promise<void>> = [];
    const post = (events: WorkerEvent[]): void => {
      posts.push(this.postEvents(data, events).catch((error: unknown) => this.log(`job ${data.jobId}: an event was not delivered: ${(error as Error).message}`)));
    };
    const run = await client.execute(local, {
      runsDir: join(dir, 'runs'),
      onStarted: ({ runId }) => post([{ type: 'started', sandboxRunId: runId, workerId: this.workerId, host: hostname(), version: this.versions[data.backend] ?? AIRLOCK_VERSION }]),
      onProgress: (event) => post([{ type: 'progress', message: event.message }]),
    });
    await Promise.all(posts);
    // The result names the server's spec: the worker's copy differs only in local paths.
    const tar = await packRunResult({ ...run, spec }, join(dir, 'result.tar'));
    const response = await request(data.endpoint + resultPath(data.jobId), {
      method: 'POST', body: createReadStream(tar.path),
      headers: { ...this.headers(data), 'content-type': 'application/x-tar', 'content-length': String(tar.bytes), [SHA256_HEADER]: tar.sha256, 'x-airlock-run': run.runId },
    });
    const text = await response.body.text();
    if (response.statusCode === 409) throw new DuplicateDelivery(`the run already had a result when this one was posted: ${text}`);
    if (response.statusCode !== 200) throw new RunEndpointError(`the result endpoint answered ${response.statusCode}: ${text.slice(0, 500)}`);
    this.completed += 1;
    return { sandboxRunId: run.runId, duplicate: false };
  }

  private async fetchArtifact(data: GateJob, index: number, sha256: string, bytes: number, tarPath: string, tree: string): Promise<void> {
    const response = await request(data.endpoint + artifactPath(data.jobId, index), { headers: this.headers(data) });
    if (response.statusCode === 409) {
      const text = await response.body.text();
      throw new DuplicateDelivery(`not run again: ${text}`);
    }
    if (response.statusCode !== 200) {
      const text = await response.body.text();
      throw new RunEndpointError(`artifact ${index}: the artifact endpoint answered ${response.statusCode}: ${text.slice(0, 500)}`);
    }
    const announced = response.headers[SHA256_HEADER];
    if (announced !== sha256) {
      response.body.destroy();
      throw new RunEndpointError(`artifact ${index}: the server announced sha256 ${String(announced)}, the job ${sha256}`);
    }
    await receiveArtifact(response.body, tarPath, Math.min(bytes, QUEUE_LIMITS.artifactBytes), sha256, `artifact ${index}`);
    const refusals = await unpackTar(tarPath, tree, { caps: { bytes: GATE_LIMITS.copyInBytes, entries: GATE_LIMITS.copyInEntries, pathBytes: GATE_LIMITS.copyOutPathBytes }, symlinks: true, modes: true });
    rmSync(tarPath, { force: true });
    if (refusals.length > 0) throw new UnrecoverableError(`refused: the workspace artifact has entries no workspace may have: ${refusals.slice(0, 5).join('; ')}`);
  }

  private async postEvents(data: GateJob, events: WorkerEvent[]): Promise<void> {
    const response = await request(data.endpoint + eventsPath(data.jobId), {
      method: 'POST', headers: { ...this.headers(data), 'content-type': 'application/json' }, body: JSON.stringify({ events }),
    });
    const text = await response.body.text();
    if (response.statusCode === 409) throw new DuplicateDelivery(text);
    if (response.statusCode !== 200) throw new RunEndpointError(`the events endpoint answered ${response.statusCode}: ${text.slice(0, 300)}`);
  }
}
