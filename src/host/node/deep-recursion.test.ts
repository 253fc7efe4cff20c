// Deep recursion, run again and again in ONE sandbox (board, oracles 20:40). Each wasm
// frame lives on the JS engine's stack (about 1 MB), and V8 recompiles a hot function with
// its optimizing tier after some runs: a frame that tier makes far larger than the baseline
// one ran awk's `d(500)` out of stack from the 9th run on. Resumes do not nest: a program
// is entered at the same JS depth on every run (the scheduler's ready queue, not a chain).

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Sandbox, drainWarmPool } from './index.js';

const wasmBuilt = existsSync(fileURLToPath(new URL('../../../public/wasm/coreutils.wasm', import.meta.url)));

afterAll(() => drainWarmPool());

/** The runs of `script` (by number, from 1) that did not print `expected` with status 0. */
async function failingRuns(sandbox: Sandbox, script: string, expected: string, times: number): Promise<string[]> {
  const failures: string[] = [];
  for (let run = 1; run <= times; run++) {
    const result = await sandbox.run(script);
    if (result.exitCode !== 0 || result.stdout !== expected) failures.push(`run ${run}: ${result.exitCode} ${result.stderr.trim()}`);
  }
  return failures;
}

describe.skipIf(!wasmBuilt)('deep recursion in one sandbox', () => {
  it('awk recursing 500 deep, 100 times', async () => {
    const sandbox = await Sandbox.create();
    const script = "awk 'function d(n) { return n == 0 ? 0 : 1 + d(n - 1) } BEGIN { print d(500) }'";
    expect(await failingRuns(sandbox, script, '500\n', 100)).toEqual([]);
    await sandbox.destroy();
  });
});
