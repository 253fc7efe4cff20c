// destroy() during a run: the run ends with SandboxClosedError instead of never settling
// (or, at its deadline, restarting a worker for a sandbox that is gone).

import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { SandboxClosedError } from '../../protocol/errors.js';
import { Sandbox, drainWarmPool } from './index.js';

const wasmDir = fileURLToPath(new URL('../../../tests/wasm', import.meta.url));

afterAll(() => drainWarmPool());

it('a run in progress when the sandbox is destroyed rejects with SandboxClosedError', async () => {
  const sandbox = await Sandbox.create({ wasmDir });
  // `probe spin` loops without syscalls: only the host can end it.
  const outcome = sandbox.run(['probe', 'spin'], { timeoutMs: 600_000 }).then(
    () => 'resolved',
    (error: unknown) => error,
  );
  // Let the run reach the worker (a pause, not a bound on anything measured).
  await new Promise((resolve) => setTimeout(resolve, 200));
  await sandbox.destroy();
  expect(await outcome).toBeInstanceOf(SandboxClosedError);
  await expect(sandbox.run(['probe', 'echo', 'x'])).rejects.toBeInstanceOf(SandboxClosedError);
});
