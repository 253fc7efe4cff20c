// Issue #5's figures: python3 start-up (warm: a spare interpreter is ready; cold: a new
// sandbox whose first python3 restores the memory snapshot), a CPU-bound loop against the
// host's CPython, and the memory the sandbox holds after 20 sequential runs.

import { spawnSync } from 'node:child_process';
import { Sandbox } from '../src/host/node/index.js';
import { kernelBundlePath } from '../src/host/node/kernel-bundle.js';
import { pythonSnapshotReady } from '../src/host/python/node-snapshot.js';
import { percentile, type BenchRow } from './report.js';
import { sandboxTrees } from './density.bench.js';

const CPU_SNIPPET = `
import time
t = time.perf_counter()
d = {}
for i in range(300000):
    d[i % 1000] = d.get(i % 1000, 0) + i
print((time.perf_counter() - t) * 1000)
`;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident memory (KiB) of this host's sandbox child trees (including the warm spare). */
function sandboxChildrenRssKiB(): number {
  return sandboxTrees().reduce((sum, tree) => sum + tree.rssKiB, 0);
}

async function startup(): Promise<BenchRow[]> {
  await pythonSnapshotReady(await kernelBundlePath());
  const cold: number[] = [];
  for (let i = 0; i < 3; i++) {
    const sandbox = await Sandbox.create({});
    const started = performance.now();
    await sandbox.run(['python3', '-c', 'pass'], { timeoutMs: 120_000 });
    cold.push(performance.now() - started);
    await sandbox.destroy();
  }
  const sandbox = await Sandbox.create({});
  const warm: number[] = [];
  for (let i = 0; i < 23; i++) {
    // The next interpreter loads while the caller does something else, as between commands.
    await pause(1500);
    const started = performance.now();
    await sandbox.run(['python3', '-c', 'pass'], { timeoutMs: 120_000 });
    if (i >= 3) warm.push(performance.now() - started);
  }
  await sandbox.destroy();
  return [
    { group: 'python', name: 'python3 -c pass, warm (p50)', value: percentile(warm, 0.5), unit: 'ms', target: '≤ 250 ms' },
    { group: 'python', name: 'python3 -c pass, cold: new sandbox, snapshot restore (p50)', value: percentile(cold, 0.5), unit: 'ms', target: '≤ 4000 ms' },
  ];
}

async function cpu(): Promise<BenchRow[]> {
  const sandbox = await Sandbox.create({});
  const ours: number[] = [];
  for (let i = 0; i < 5; i++) {
    const result = await sandbox.run(['python3', '-c', CPU_SNIPPET], { timeoutMs: 120_000 });
    ours.push(Number(result.stdout.trim()));
  }
  await sandbox.destroy();
  const host: number[] = [];
  for (let i = 0; i < 5; i++) host.push(Number(spawnSync('python3', ['-c', CPU_SNIPPET], { encoding: 'utf8' }).stdout.trim()));
  return [
    { group: 'python', name: '300,000-iteration loop with dict updates (p50 of 5)', value: percentile(ours, 0.5), unit: 'ms', reference: percentile(host, 0.5), referenceLabel: 'host CPython', target: '≤ 3×' },
  ];
}

/** Worker mode (each interpreter a worker, one spare loaded) or inline (all in the kernel's realm). */
async function memory(pythonMode: 'worker' | 'inline'): Promise<BenchRow[]> {
  const sandbox = await Sandbox.create({ pythonMode });
  await sandbox.run(['python3', '-c', 'pass'], { timeoutMs: 120_000 });
  await pause(3000);
  const afterOne = sandboxChildrenRssKiB();
  for (let i = 0; i < 20; i++) await sandbox.run(['python3', '-c', 'x = list(range(100000)); print(len(x))'], { timeoutMs: 120_000 });
  await pause(3000);
  const afterTwenty = sandboxChildrenRssKiB();
  await sandbox.destroy();
  return [
    { group: 'python', name: `sandbox children RSS after 20 python3 runs${pythonMode === 'inline' ? ' inline' : ''}`, value: afterTwenty / 1024, unit: 'MiB', reference: afterOne / 1024, referenceLabel: 'after 1 run', target: 'no growth beyond one interpreter' },
  ];
}

export async function run(): Promise<BenchRow[]> {
  // PYTHON_PARTS=memory,inline runs only those parts.
  const only = process.env.PYTHON_PARTS?.split(',');
  const parts: Array<[string, () => Promise<BenchRow[]>]> = [
    ['startup', startup],
    ['cpu', cpu],
    ['memory', () => memory('worker')],
    ['inline', () => memory('inline')],
  ];
  const rows: BenchRow[] = [];
  for (const [name, part] of parts) if (only === undefined || only.includes(name)) rows.push(...(await part()));
  return rows;
}
