// qemu gates through the queue (the `vm` stage of npm test): a worker serving qemu and wasm
// takes both kinds from their queues; each qemu gate boots a microVM on the worker's side
// from the fetched workspace. Afterwards no VM (no process naming the worker's scratch dir)
// and no temp dir is left. Skipped with the reason when QEMU or its image is missing.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxClient } from '../backends/registry.js';
import { readLedger } from '../gates/ledger.js';
import { placementsOf } from './placement.js';
import { runGate, startKit, tinyWorkspace, type Kit } from './queue-test-kit.js';
import { redisMissing, TestRedis } from './test-redis.js';
import { GateWorker } from './worker.js';

/** Processes whose command line names `path` (a VM's disks live under the worker's job dir). */
function processesNaming(path: string): string[] {
  return readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).flatMap((pid) => {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      return cmdline.includes(path) ? [`${pid}: ${cmdline.slice(0, 200)}`] : [];
    } catch {
      return [];
    }
  });
}

let skip: string | undefined = redisMissing();
let redis: TestRedis;
let kit: Kit;
let worker: GateWorker;

beforeAll(async () => {
  if (skip === undefined) {
    const health = await createSandboxClient('qemu').health();
    if (!health.reachable) skip = `qemu cannot run here: ${health.reasons.join('; ')}`;
  }
  if (skip !== undefined) return;
  redis = await TestRedis.start();
  kit = await startKit(redis.url);
  worker = new GateWorker({ url: redis.url, backends: ['qemu', 'wasm'], concurrency: 1, workRoot: join(kit.dir, 'work'), heartbeatMs: 1000, log: () => undefined });
  await worker.start();
});
afterAll(async () => {
  await worker?.close();
  await kit?.close();
  await redis?.close();
});

describe('qemu gates through the queue', () => {
  it('runs qemu and wasm gates on one worker, leaving no VM or temp dir', async (context) => {
    if (skip !== undefined) context.skip(skip);
    expect(worker.served).toEqual(['qemu', 'wasm']);
    const outcomes = await Promise.all([
      runGate(kit, tinyWorkspace(kit.dir, 'vm-1'), 'qemu'),
      runGate(kit, tinyWorkspace(kit.dir, 'vm-2'), 'qemu'),
      runGate(kit, tinyWorkspace(kit.dir, 'wasm-1'), 'wasm'),
    ]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['passed', 'passed', 'passed']);
    for (const outcome of outcomes) {
      const ledger = await readLedger(outcome.ledgerPath);
      expect(ledger.attempts).toHaveLength(1);
      expect(Object.values(placementsOf(outcome.runDir)).map((p) => p.workerId)).toEqual([worker.workerId]);
    }
    expect((await readLedger(outcomes[0]?.ledgerPath ?? '')).attempts[0]?.backend).toBe('qemu');
    const workDir = join(kit.dir, 'work', worker.workerId);
    expect(readdirSync(workDir).filter((name) => name.startsWith('job-'))).toEqual([]);
    expect(processesNaming(workDir)).toEqual([]);
    expect(readdirSync(kit.scratch)).toEqual([]);
  });
});
