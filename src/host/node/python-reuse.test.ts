// Python workers reused from their image (issue 21, src/kernel/python/interpreter-reset.ts):
// a process on a reset worker must find nothing of the one before, and a run whose effects
// a reset cannot undo makes its worker retire, so the next process gets a fresh one. The
// kernel's trace (AIRLOCK_PYTHON_TRACE=1 in the process's environment) says which it got.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectNothingCarriedOverReused } from '../../../tests/python-isolation/state.js';
import { sharedPythonSandbox } from '../../../tests/python-isolation/sandbox.js';

const shellBuilt = existsSync(fileURLToPath(new URL('../../../public/wasm/shell.wasm', import.meta.url)));
const TIMEOUT = 240_000;
const env = { AIRLOCK_PYTHON_TRACE: '1' };

describe.skipIf(!shellBuilt)('python3 on reused workers', { timeout: TIMEOUT }, () => {
  const sandbox = sharedPythonSandbox(TIMEOUT);

  const python = async (code: string): Promise<{ out: string; trace: string; code: number }> => {
    const result = await sandbox().run(['python3', '-c', code], { timeoutMs: 120_000, env });
    const [trace = '', ...rest] = result.stderr.split('\n');
    return { out: result.stdout, trace, code: result.exitCode + (rest.join('\n') === '' ? 0 : 1000) };
  };

  it('reuses a worker and leaves nothing of one run in the next', async () => {
    await python('pass');
    await expectNothingCarriedOverReused(sandbox());
  });

  it('retires a worker whose run changed what a reset cannot undo', async () => {
    // A write to Pyodide's private MEMFS, a ctypes callback (a function-table slot that
    // Emscripten's JS keeps account of): each makes the next run's interpreter fresh.
    const retiring = ["open('/lib/x', 'w').close()", 'import ctypes; ctypes.CFUNCTYPE(ctypes.c_int)(lambda: 1)'];
    for (const code of retiring) {
      await python('pass');
      const changed = await python(code);
      expect(changed.trace).toMatch(/^python3: reused interpreter/);
      const next = await python('import os; print(os.path.exists("/lib/x"))');
      expect(next.trace).toMatch(/^python3: fresh interpreter \(the last reused one retired: the interpreter could not be reset: /);
      expect(next.out).toBe('False\n');
    }
  });

  it('runs the three Pythons of a pipeline at once, on reused workers the second time', async () => {
    const echo = 'import sys; sys.stdout.write(sys.stdin.read())';
    const pipeline = `echo hi | AIRLOCK_PYTHON_TRACE=1 python3 -c '${echo}' | AIRLOCK_PYTHON_TRACE=1 python3 -c '${echo}' | AIRLOCK_PYTHON_TRACE=1 python3 -c '${echo}'`;
    const first = await sandbox().run(pipeline, { timeoutMs: 120_000 });
    expect(first.stdout).toBe('hi\n');
    const second = await sandbox().run(pipeline, { timeoutMs: 120_000 });
    expect(second.stdout).toBe('hi\n');
    expect(second.stderr.match(/reused interpreter/g)?.length).toBe(3);
  });
});
