// Issue #3's figures: `echo hi` through the session shell (warm, per command via the host
// API), a 100,000-iteration arithmetic loop and a 10,000-iteration function-call loop
// timed against /bin/bash in the same run, and the size of shell.wasm.

import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sandbox } from '../src/host/node/index.js';
import { percentile, type BenchRow } from './report.js';

// SHELL_BENCH_WASM_DIR measures modules not yet in public/wasm (a manifest.json beside them).
const wasmDir = process.env.SHELL_BENCH_WASM_DIR ?? fileURLToPath(new URL('../public/wasm', import.meta.url));
const shellWasm = join(wasmDir, 'shell.wasm');

const ARITHMETIC_LOOP = 's=0; for ((i = 0; i < 100000; i++)); do ((s += i * 2 % 7)); done; echo $s';
const FUNCTION_LOOP = 'n=0; inc() { n=$((n + $1)); }; for ((i = 0; i < 10000; i++)); do inc 2; done; echo $n';

/** Seconds real bash takes for `script` (its own `time`, so process start is not counted). */
function bashSeconds(script: string): number {
  const result = spawnSync('/bin/bash', ['-c', `TIMEFORMAT=%R; time { ${script}; } >/dev/null`], { encoding: 'utf8' });
  const seconds = Number(result.stderr.trim().split('\n').pop());
  if (!Number.isFinite(seconds)) throw new Error(`bash timing failed: ${result.stderr}`);
  return seconds;
}

/** Milliseconds of the best of `rounds` runs of `script` in the sandbox, less an empty run. */
async function sandboxMs(sandbox: Sandbox, script: string, expected: string, rounds: number): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const result = await sandbox.run(script, { timeoutMs: 120_000 });
    const elapsed = performance.now() - started;
    if (result.stdout !== expected) throw new Error(`${script} printed ${JSON.stringify(result.stdout)}: ${result.stderr}`);
    best = Math.min(best, elapsed);
  }
  return best;
}

function bashBestMs(script: string, rounds: number): number {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) best = Math.min(best, bashSeconds(script) * 1000);
  return best;
}

export async function run(): Promise<BenchRow[]> {
  const sandbox = await Sandbox.create({ wasmDir });
  try {
    // Warm: the session shell is running and V8 has tiered its code up.
    for (let i = 0; i < 300; i++) await sandbox.run('echo hi');
    const samples: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const started = performance.now();
      await sandbox.run('echo hi');
      samples.push(performance.now() - started);
    }
    const echoMs = percentile(samples, 0.5);
    // Reference: a whole `bash -c 'echo hi'` (bash has no warm session to send a line to).
    const bashEcho: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      spawnSync('/bin/bash', ['-c', 'echo hi']);
      bashEcho.push(performance.now() - started);
    }

    const arithmeticExpected = spawnSync('/bin/bash', ['-c', ARITHMETIC_LOOP], { encoding: 'utf8' }).stdout;
    const functionExpected = spawnSync('/bin/bash', ['-c', FUNCTION_LOOP], { encoding: 'utf8' }).stdout;
    const arithmeticMs = (await sandboxMs(sandbox, ARITHMETIC_LOOP, arithmeticExpected, 5)) - echoMs;
    const functionMs = (await sandboxMs(sandbox, FUNCTION_LOOP, functionExpected, 5)) - echoMs;

    return [
      { group: 'shell', name: "`echo hi` through the session shell, warm, p50", value: echoMs, unit: 'ms', reference: percentile(bashEcho, 0.5), referenceLabel: "bash -c 'echo hi', whole process", target: '≤ 1 ms' },
      { group: 'shell', name: '`echo hi`, p99', value: percentile(samples, 0.99), unit: 'ms' },
      { group: 'shell', name: '100,000-iteration arithmetic loop', value: arithmeticMs, unit: 'ms', reference: bashBestMs(ARITHMETIC_LOOP, 5), referenceLabel: 'bash 5', target: '≤ 2× bash' },
      { group: 'shell', name: '10,000-iteration loop calling a function', value: functionMs, unit: 'ms', reference: bashBestMs(FUNCTION_LOOP, 5), referenceLabel: 'bash 5', target: '≤ 2× bash' },
      { group: 'shell', name: 'shell.wasm size', value: statSync(shellWasm).size / 1e6, unit: 'MB', target: '≤ 1.35 MB' },
    ];
  } finally {
    await sandbox.destroy();
  }
}
