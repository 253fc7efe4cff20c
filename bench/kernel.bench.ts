// Issue #2's figures: warm per-process latency, Sandbox.create, 3-stage pipe throughput,
// checkpoint time on a 10,000-file VFS.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTestKernel } from '../tests/helpers/test-kernel.js';
import { Sandbox } from '../src/host/node/index.js';
import { percentile, type BenchRow } from './report.js';

const wasmDir = fileURLToPath(new URL('../tests/wasm', import.meta.url));

async function processLatency(): Promise<BenchRow[]> {
  const t = createTestKernel();
  for (let i = 0; i < 500; i++) await t.run(['probe', 'exit', '0']);
  const samples: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const started = performance.now();
    await t.run(['probe', 'exit', '0']);
    samples.push(performance.now() - started);
  }
  // Reference: fork+exec of native /bin/true from a shell loop, per process.
  const native = spawnSync('/bin/bash', ['-c', 'TIMEFORMAT=%R; time (for i in $(seq 1000); do /bin/true; done)'], { encoding: 'utf8' });
  const nativeMs = (Number(native.stderr.trim()) * 1000) / 1000;
  return [
    { group: 'kernel', name: 'spawn→exit of a trivial tool, p50', value: percentile(samples, 0.5), unit: 'ms', reference: nativeMs, referenceLabel: 'native fork+exec /bin/true', target: '≤ 0.5 ms' },
    { group: 'kernel', name: 'spawn→exit of a trivial tool, p99', value: percentile(samples, 0.99), unit: 'ms' },
  ];
}

async function createTime(): Promise<BenchRow[]> {
  const warmup = await Sandbox.create({ wasmDir });
  await warmup.destroy();
  const samples: number[] = [];
  for (let i = 0; i < 10; i++) {
    // Let the warm spare finish compiling, as it would between real uses.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const started = performance.now();
    const sandbox = await Sandbox.create({ wasmDir });
    samples.push(performance.now() - started);
    await sandbox.destroy();
  }
  return [{ group: 'host', name: 'Sandbox.create, warm (p50)', value: percentile(samples, 0.5), unit: 'ms', target: '≤ 50 ms' }];
}

async function pipeThroughput(): Promise<BenchRow[]> {
  const t = createTestKernel();
  const bytes = 50 * 1024 * 1024;
  // Warm up until V8 has tiered the hot wasm code up (dynamic tiering starts in baseline code).
  for (let i = 0; i < 3; i++) await t.run(['probe', 'pipe3', String(bytes)]);
  const started = performance.now();
  const result = await t.run(['probe', 'pipe3', String(bytes)]);
  const seconds = (performance.now() - started) / 1000;
  if (result.out.trim() !== String(bytes)) throw new Error(`pipe3 returned ${result.out}`);
  const native = spawnSync('/bin/bash', ['-c', `TIMEFORMAT=%R; time (head -c ${bytes} /dev/zero | cat | wc -c >/dev/null)`], { encoding: 'utf8' });
  const nativeSeconds = Number(native.stderr.trim());
  return [
    { group: 'kernel', name: '3-stage pipe (emit | cat | count), 50 MB', value: bytes / 1e6 / seconds, unit: 'MB/s', reference: bytes / 1e6 / nativeSeconds, referenceLabel: 'head | cat | wc, native', higherIsBetter: true, target: '≥ 200 MB/s' },
  ];
}

async function checkpointTime(): Promise<BenchRow[]> {
  const sandbox = await Sandbox.create({ wasmDir, limits: { messageBytes: 64 * 1024 * 1024 } });
  const t = createTestKernel();
  // The same 10,000 files in an in-process kernel (the kernel's own checkpoint) ...
  t.kernel.fs.mkdir('files');
  for (let i = 0; i < 10000; i++) t.kernel.fs.writeFile(`files/f${i}`, new TextEncoder().encode(`file ${i}\n`));
  const kernelSamples: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    t.kernel.snapshot(i + 1);
    kernelSamples.push(performance.now() - started);
  }
  // ... and through the host API (round trip to the sandbox process, host mirror copy).
  for (let i = 0; i < 10000; i += 1000) {
    const batch: Record<string, string> = {};
    for (let j = i; j < i + 1000; j++) batch[`files/f${j}`] = `file ${j}\n`;
    for (const [path, content] of Object.entries(batch)) await sandbox.writeFile(path, content, { parents: true });
  }
  const hostSamples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await sandbox.snapshot();
    hostSamples.push(performance.now() - started);
  }
  await sandbox.destroy();
  return [
    { group: 'kernel', name: 'checkpoint of a 10,000-file VFS (kernel COW snapshot), p50', value: percentile(kernelSamples, 0.5), unit: 'ms', target: '≤ 5 ms' },
    { group: 'host', name: 'sandbox.snapshot() with 10,000 files (round trip + host copy), p50', value: percentile(hostSamples, 0.5), unit: 'ms' },
  ];
}

export async function run(): Promise<BenchRow[]> {
  return [...(await processLatency()), ...(await createTime()), ...(await pipeThroughput()), ...(await checkpointTime())];
}
