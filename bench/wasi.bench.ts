// Issue #14's figures for foreign WASI programs (docs/wasi.md), through the Node sandbox:
// spawn → exit of a trivial foreign program, warm (target ≤ 1 ms), against the same loop
// running the sandbox's own /bin/true; and a 3-stage pipeline of foreign programs in MB/s
// (target ≥ 100 MB/s), against the same pipeline of the sandbox's own tools. The programs
// are tests/wasi/bin (built by scripts/build-wasm.mjs).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Sandbox } from '../src/host/node/index.js';
import type { BenchRow } from './report.js';

const binDir = fileURLToPath(new URL('../tests/wasi/bin/', import.meta.url));
const LOOP = 1000;
const BYTES = 50 * 1024 * 1024;

/** Milliseconds `command` takes in `sandbox` (its output checked), the best of `samples`. */
async function timed(sandbox: Sandbox, command: string, expected: string, samples: number): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const result = await sandbox.run(command, { cwd: '/home/user/w', timeoutMs: 600_000 });
    const elapsed = performance.now() - started;
    if (result.stdout !== expected) throw new Error(`${command} printed ${JSON.stringify(result.stdout)} (${result.stderr.trim()}), not ${JSON.stringify(expected)}`);
    best = Math.min(best, elapsed);
  }
  return best;
}

export async function run(): Promise<BenchRow[]> {
  const sandbox = await Sandbox.create({ limits: { timeoutMs: 600_000 } });
  try {
    await sandbox.mkdir('/home/user/w');
    for (const name of ['true.wasm', 'emit.wasm', 'cat.wasm', 'count.wasm']) {
      await sandbox.writeFile(`/home/user/w/${name}`, readFileSync(`${binDir}${name}`), { mode: 0o755 });
    }
    // Warm: the module compiled and workers started, as after a program's first run.
    await timed(sandbox, `for i in $(seq 20); do ./true.wasm; done; echo done`, 'done\n', 1);
    const foreignLoop = await timed(sandbox, `for i in $(seq ${LOOP}); do ./true.wasm; done; echo done`, 'done\n', 3);
    const ownLoop = await timed(sandbox, `for i in $(seq ${LOOP}); do /bin/true; done; echo done`, 'done\n', 3);
    const foreignPipe = `./emit.wasm ${BYTES} | ./cat.wasm | ./count.wasm`;
    const ownPipe = `head -c ${BYTES} /dev/zero | cat | wc -c`;
    await timed(sandbox, foreignPipe, `${BYTES}\n`, 1);
    const foreignSeconds = (await timed(sandbox, foreignPipe, `${BYTES}\n`, 3)) / 1000;
    const ownSeconds = (await timed(sandbox, ownPipe, `${BYTES}\n`, 3)) / 1000;
    return [
      { group: 'wasi', name: 'spawn→exit of a trivial foreign WASI program, warm (per process in a shell loop)', value: foreignLoop / LOOP, unit: 'ms', reference: ownLoop / LOOP, referenceLabel: "the sandbox's own /bin/true", target: '≤ 1 ms' },
      { group: 'wasi', name: '3-stage pipeline of foreign programs (emit.wasm, cat.wasm, count.wasm), 50 MiB', value: BYTES / 1e6 / foreignSeconds, unit: 'MB/s', reference: BYTES / 1e6 / ownSeconds, referenceLabel: 'head -c, cat, wc -c: own tools', higherIsBetter: true, target: '≥ 100 MB/s' },
    ];
  } finally {
    await sandbox.destroy();
  }
}
