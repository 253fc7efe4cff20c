// The gate queue with workers in this process (the fault tests with worker processes are
// queue-faults.test.ts): a gate through the queue, a duplicate delivery, a declined
// backend, queue depth while the only worker is busy, and the per-run token's reach.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedger } from '../gates/ledger.js';
import { listWorkers } from './fleet.js';
import { QUEUE_PREFIX, artifactPath, queueName, resultPath, type GateJob } from './protocol.js';
import { placementsOf } from './placement.js';
import { redisMissing, TestRedis } from './test-redis.js';
import { runGate, startKit, tinyWorkspace, type Kit } from './queue-test-kit.js';
import { GateWorker } from './worker.js';

const missing = redisMissing();

describe.skipIf(missing !== undefined)(`gate queue (in-process workers)${missing === undefined ? '' : ` — skipped: ${missing}`}`, () => {
  let redis: TestRedis;
  let kit: Kit;
  const workers: GateWorker[] = [];
  const start = async (backends: GateWorker['served'], concurrency = 1): Promise<GateWorker> => {
    const worker = new GateWorker({ url: redis.url, backends, concurrency, workRoot: join(kit.dir, 'work'), lockDurationMs: 2000, stalledIntervalMs: 1000, heartbeatMs: 500, log: () => undefined });
    await worker.start();
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    redis = await TestRedis.start({ password: 'test-only-password' });
    kit = await startKit(redis.url);
  });
  afterAll(async () => {
    for (const worker of workers) await worker.close();
    await kit?.close();
    await redis?.close();
  });

  it('runs a gate on a worker: one attempt, a verified ledger, where it ran recorded', async () => {
    const worker = await start(['wasm']);
    const outcome = await runGate(kit, tinyWorkspace(kit.dir, 'one'));
    expect(outcome.outcome).toBe('passed');
    const ledger = await readLedger(outcome.ledgerPath);
    expect(ledger.attempts).toHaveLength(1);
    const placements = Object.values(placementsOf(outcome.runDir));
    expect(placements.map((p) => p.workerId)).toEqual([worker.workerId]);
    expect(ledger.attempts[0]?.sandboxRunId).toBe(Object.keys(placementsOf(outcome.runDir))[0]);
    // The scratch space of the run is gone on both ends.
    expect(readdirSync(kit.scratch)).toEqual([]);
    expect(readdirSync(join(kit.dir, 'work', worker.workerId)).filter((name) => name.startsWith('job-'))).toEqual([]);
  });

  it('takes a duplicate delivery once: the same run id adds no job, a second delivery runs nothing', async () => {
    const queue = new Queue<GateJob>(queueName('wasm'), { connection: { ...kit.dispatch.address.redis }, prefix: QUEUE_PREFIX });
    const events = new QueueEvents(queueName('wasm'), { connection: { ...kit.dispatch.address.redis }, prefix: QUEUE_PREFIX });
    try {
      const outcome = await runGate(kit, tinyWorkspace(kit.dir, 'dup'));
      const jobId = Object.values(placementsOf(outcome.runDir))[0]?.jobId ?? '';
      const job = await queue.getJob(jobId);
      expect(job?.data.jobId).toBe(jobId);
      const data = job?.data as GateJob;
      // Adding the same run id again is a no-op (BullMQ's jobId).
      await kit.dispatch.queue.enqueue(data);
      expect((await queue.getJob(jobId))?.finishedOn).toBe(job?.finishedOn);
      // Delivered again under another job id (as after a lost acknowledgement): nothing runs.
      const again = await queue.add('dup', data, { jobId: `${jobId}-again` });
      const value: unknown = await again.waitUntilFinished(events);
      expect(value).toEqual({ sandboxRunId: null, duplicate: true });
      const ledger = await readLedger(outcome.ledgerPath);
      expect(ledger.attempts).toHaveLength(1);
      expect(Object.values(placementsOf(outcome.runDir))[0]?.deliveries).toHaveLength(1);
    } finally {
      await events.close();
      await queue.close();
    }
  });

  it('declines a backend it cannot run, with the reason, in the fleet view', async () => {
    const worker = await start(['wasm', 'firecracker']);
    expect(worker.served).toEqual(['wasm']);
    expect(worker.declined.firecracker).toMatch(/\S/);
    const record = (await listWorkers(kit.dispatch.address)).find((w) => w.workerId === worker.workerId);
    expect(record?.backends).toEqual(['wasm']);
    expect(record?.declined.firecracker).toBe(worker.declined.firecracker);
    const health = await kit.dispatch.client('firecracker').health();
    expect(health.reasons.join()).toMatch(/no live worker serves firecracker yet.*declined by/);
  });

  it('refuses a job whose spec breaks the contract, naming the field', async () => {
    const queue = new Queue<GateJob>(queueName('wasm'), { connection: { ...kit.dispatch.address.redis }, prefix: QUEUE_PREFIX });
    const events = new QueueEvents(queueName('wasm'), { connection: { ...kit.dispatch.address.redis }, prefix: QUEUE_PREFIX });
    try {
      await events.waitUntilReady();
      const jobId = '0190a000-0000-7000-8000-0000000000aa';
      const spec = { image: 'airlock', copyIn: [], env: { GITHUB_TOKEN: 'ghp_x' }, phases: [{ name: 'test', argv: ['true'] }], label: 'tests-attempt-1' };
      const job = await queue.add('bad', { v: 1, jobId, gateRunId: jobId, gateId: 'tests', attempt: 1, backend: 'wasm', spec, artifacts: [], endpoint: 'http://127.0.0.1:9', token: 'A'.repeat(43), enqueuedAt: new Date().toISOString() } as unknown as GateJob, { jobId });
      await expect(job.waitUntilFinished(events)).rejects.toThrow(/refused: the spec does not satisfy the contract: spec\.env\.GITHUB_TOKEN: not on the environment allowlist/);
      expect((await queue.getJob(jobId))?.attemptsMade).toBe(1); // not retried
    } finally {
      await events.close();
      await queue.close();
    }
  });

  it('reports queue depth while every worker is busy', async () => {
    for (const worker of workers.splice(0)) await worker.close();
    await start(['wasm'], 1);
    const runs = ['busy-1', 'busy-2', 'busy-3'].map((name) => runGate(kit, tinyWorkspace(kit.dir, name, 2)));
    let depth = await kit.dispatch.queue.depth();
    for (let i = 0; i < 400 && !(depth[0]?.active === 1 && depth[0].waiting === 2); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      depth = await kit.dispatch.queue.depth();
    }
    expect(depth.find((d) => d.backend === 'wasm')).toMatchObject({ active: 1, waiting: 2 });
    const outcomes = await Promise.all(runs);
    expect(outcomes.map((o) => o.outcome)).toEqual(['passed', 'passed', 'passed']);
    expect((await kit.dispatch.queue.depth()).find((d) => d.backend === 'wasm')).toMatchObject({ active: 0, waiting: 0 });
  });

  it("refuses a run's token on another run's endpoints", async () => {
    const endpoint = kit.dispatch.endpoint();
    const first = runGate(kit, tinyWorkspace(kit.dir, 'token-a', 1));
    // A run waiting in the queue with no worker: its token is known only to the job.
    for (const worker of workers.splice(0)) await worker.close();
    const queue = new Queue<GateJob>(queueName('wasm'), { connection: { ...kit.dispatch.address.redis }, prefix: QUEUE_PREFIX });
    try {
      const pending = runGate(kit, tinyWorkspace(kit.dir, 'token-b'));
      let jobs = await queue.getWaiting();
      for (let i = 0; i < 200 && jobs.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        jobs = await queue.getWaiting();
      }
      const [job] = jobs;
      if (job === undefined) throw new Error('no waiting job');
      const own = await fetch(endpoint + artifactPath(job.data.jobId, 0), { headers: { authorization: `Bearer ${job.data.token}` } });
      expect(own.status).toBe(200);
      await own.arrayBuffer();
      const other = await fetch(endpoint + artifactPath('0190a000-0000-7000-8000-000000000000', 0), { headers: { authorization: `Bearer ${job.data.token}` } });
      expect(other.status).toBe(404);
      const none = await fetch(endpoint + resultPath(job.data.jobId), { method: 'POST', headers: { 'content-type': 'application/x-tar' }, body: 'x' });
      expect(none.status).toBe(401);
      const wrong = await fetch(endpoint + artifactPath(job.data.jobId, 0), { headers: { authorization: `Bearer ${'A'.repeat(43)}` } });
      expect(wrong.status).toBe(403);
      await start(['wasm']);
      expect((await pending).outcome).toBe('passed');
      expect((await first).outcome).toBe('passed');
      // Once the result is in, the token opens nothing that could change it.
      const late = await fetch(endpoint + artifactPath(job.data.jobId, 0), { headers: { authorization: `Bearer ${job.data.token}` } });
      expect(late.status).toBe(409);
    } finally {
      await queue.close();
    }
  });
});
