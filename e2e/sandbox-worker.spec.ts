// The sandbox in Debian's Chromium: a command runs through the browser Worker, and the
// worker realm is hardened.

import { expect, test } from '@playwright/test';

// Running a command through the page and seeing its exit status is covered by the
// playground's terminal specs (e2e/playground.spec.ts).

test('the host API works from the page: files, runs, errors', async ({ page }) => {
  await page.goto('/');
  // window.airlock is set by the page's code, which loads after the entry has started the sandbox.
  await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
  const result = await page.evaluate(async () => {
    const sandbox = await (window as unknown as { airlock: { sandbox: Promise<{
      writeFile(p: string, c: string): Promise<void>;
      readDir(p: string): Promise<Array<{ name: string }>>;
      run(c: string[]): Promise<{ exitCode: number; stderr: string }>;
    }> } }).airlock.sandbox;
    await sandbox.writeFile('hello.txt', 'hi');
    const names = (await sandbox.readDir('.')).map((e) => e.name);
    const missing = await sandbox.run(['no-such-command']);
    let roError = '';
    await sandbox.writeFile('/etc/x', 'y').catch((e: { code: string }) => (roError = e.code));
    return { names, missing, roError };
  });
  expect(result.names).toContain('hello.txt');
  expect(result.missing.exitCode).toBe(127);
  expect(result.roError).toBe('EROFS');
});

test('the sandbox worker realm is hardened: no network or storage globals, no eval', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
  // Asked of the worker itself: DevTools evaluation would bypass the worker's CSP.
  const report = await page.evaluate(async () => {
    const sandbox = await (window as unknown as { airlock: { sandbox: Promise<{ selfCheck(): Promise<unknown> }> } }).airlock.sandbox;
    return sandbox.selfCheck();
  });
  expect(report).toEqual({ reachableGlobals: [], codeGeneration: 'blocked' });
});
