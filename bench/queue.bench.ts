// The gate queue (BullMQ on a Redis of its own, loopback): gates per minute with 1, 2 and 4
// workers on the wasm backend and the scaling efficiency as measured (on 2 cores it
// flattens past two workers), and the queue's added latency per gate against the same gate
// in-process, measured in the same run (target ≤ 20 ms). Workers run in this process (each
// sandbox is its own child process either way); the workspace is tiny so the queue's own
// cost — pack, enqueue, fetch, unpack, result upload — is what differs.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxClient } from '../server/backends/registry.js';
import { BUILTIN_CATALOG, loadCatalog } from '../server/gates/catalog.js';
import { GateRunner } from '../server/gates/runner.js';
import { runGate, startKit, tinyWorkspace } from '../server/queue/queue-test-kit.js';
import { redisMissing, TestRedis } from '../server/queue/test-redis.js';
import { GateWorker } from '../server/queue/worker.js';
import { percentile, type BenchRow } from './report.js';

const SEQUENTIAL = 10;
const BATCH = 12;

export async function run(): Promise<BenchRow[]> {
  const missing = redisMissing();
  if (missing !== undefined) {
    console.log(`bench: queue skipped: ${missing}`);
    return [];
  }
  const gate = loadCatalog([BUILTIN_CATALOG]).get('tests');
  if (gate === undefined) throw new Error('no tests gate');
  const root = mkdtempSync(join(tmpdir(), 'airlock-bench-queue-'));
  const redis = await TestRedis.start();
  const kit = await startKit(redis.url);
  const rows: BenchRow[] = [];
  const workers: GateWorker[] = [];
  const startWorkers = async (count: number): Promise<void> => {
    while (workers.length < count) {
      const worker = new GateWorker({ url: redis.url, backends: ['wasm'], concurrency: 1, workRoot: join(root, 'work'), heartbeatMs: 2000, log: () => undefined });
      await worker.start();
      workers.push(worker);
    }
  };
  try {
    const workspace = tinyWorkspace(root, 'bench');
    const client = createSandboxClient('wasm');
    const inProcess = async (): Promise<number> => {
      const started = performance.now();
      await new GateRunner({ gate, workspace, client, gatesDir: join(root, 'gates-local') }).run();
      return performance.now() - started;
    };
    const queued = async (): Promise<number> => {
      const started = performance.now();
      const outcome = await runGate(kit, workspace);
      if (outcome.outcome !== 'passed') throw new Error(`a queued bench gate ${outcome.outcome}: ${outcome.reason}`);
      return performance.now() - started;
    };
    await startWorkers(1);
    await inProcess(); // warm both paths once
    await queued();
    // Interleaved, so load on the shared machine falls on both alike.
    const local: number[] = [];
    const remote: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      local.push(await inProcess());
      remote.push(await queued());
    }
    const localMedian = percentile(local, 0.5);
    const remoteMedian = percentile(remote, 0.5);
    rows.push({ group: 'queue', name: 'one gate, queued to one worker (median)', value: remoteMedian, unit: 'ms', reference: localMedian, referenceLabel: 'in-process' });
    // Signed: on a loaded machine the noise between runs can be larger than the queue's cost.
    rows.push({ group: 'queue', name: "the queue's added latency per gate (median queued − median in-process; < 0 is noise)", value: remoteMedian - localMedian, unit: 'ms', target: '≤ 20 ms' });

    let single = 0;
    for (const count of [1, 2, 4]) {
      await startWorkers(count);
      const started = performance.now();
      await Promise.all(Array.from({ length: BATCH }, () => runGate(kit, workspace)));
      const perMinute = (BATCH / (performance.now() - started)) * 60_000;
      if (count === 1) single = perMinute;
      rows.push({
        group: 'queue', name: `${BATCH} gates, ${count} worker${count === 1 ? '' : 's'}: gates per minute (efficiency ${((perMinute / single / count) * 100).toFixed(0)}%)`,
        value: perMinute, unit: 'gates/min', ...(count === 1 ? {} : { reference: single * count, referenceLabel: `${count} × one worker`, higherIsBetter: true }),
      });
    }
  } finally {
    for (const worker of workers) await worker.close();
    await kit.close();
    await redis.close();
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}
