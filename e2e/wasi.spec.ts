// Foreign WASI programs in the playground (Chromium, a cross-origin isolated page): a wasm
// module written into the workspace runs as a process in a nested Worker of the kernel
// worker, in a pipeline with the sandbox's own tools, and a module importing anything but
// WASI is refused naming the import (docs/wasi.md). The programs are tests/wasi/bin/*.wasm.

import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';

const program = (name: string): number[] => [...readFileSync(new URL(`../tests/wasi/bin/${name}`, import.meta.url))];

test('a foreign WASI program runs in the playground, in a pipeline, and a bad import is refused', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
  const files = { 'echo.wasm': program('echo.wasm'), 'cat.wasm': program('cat.wasm'), 'head.wasm': program('head.wasm'), 'bad-import.wasm': program('bad-import.wasm') };
  const results = await page.evaluate(async (files) => {
    type Result = { exitCode: number; stdout: string; stderr: string };
    const sandbox = await (window as unknown as { airlock: { sandbox: Promise<{
      writeFile(p: string, c: Uint8Array, o: { mode: number }): Promise<void>;
      run(c: string): Promise<Result>;
    }> } }).airlock.sandbox;
    for (const [name, bytes] of Object.entries(files)) await sandbox.writeFile(`/tmp/${name}`, new Uint8Array(bytes), { mode: 0o755 });
    return {
      isolated: (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true,
      pipeline: await sandbox.run('cd /tmp && ./echo.wasm from the browser | ./cat.wasm | tr a-z A-Z'),
      yes: await sandbox.run('cd /tmp && yes | ./head.wasm -n 2; echo "${PIPESTATUS[@]}"'),
      bad: await sandbox.run('cd /tmp && ./bad-import.wasm'),
    };
  }, files);
  expect(results.isolated).toBe(true);
  expect(results.pipeline).toMatchObject({ exitCode: 0, stdout: 'FROM THE BROWSER\n', stderr: '' });
  expect(results.yes.stdout).toBe('y\ny\n141 0\n');
  expect(results.bad.exitCode).toBe(126);
  expect(results.bad.stderr).toContain('cannot run: imports env.host_secret, which Airlock does not provide');
});
