// The first minutes (issue 18, item 4): a first visit gets a workspace with sample files
// and a panel saying what works and what is off by default; examples open from a menu as
// workspaces of their own.

import { expect, test } from '@playwright/test';
import { sandboxRun, terminalText, typeInTerminal, waitIdle } from './playground-helpers.js';

test.use({ viewport: { width: 1400, height: 900 } });

test('a first visit starts with sample files, the welcome panel and hello.py open', async ({ page }) => {
  test.setTimeout(300_000);
  await page.goto('/');
  await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
  const welcome = page.locator('[data-panel="welcome"]');
  await expect(welcome).toBeVisible();
  await expect(welcome).toContainText('Works here');
  for (const what of ['Shell', 'Coreutils', 'Python 3', 'Persistence']) await expect(welcome).toContainText(what);
  await expect(welcome).toContainText('Off by default');
  await expect(welcome).toContainText('Network');
  await expect(welcome).toContainText('Settings → Network');
  await expect(welcome).toContainText('Packages');
  // Packages say how to turn them on, not only that they are off.
  await expect(welcome).toContainText('Settings → Packages');
  await expect(welcome).not.toContainText('is not available');
  for (const name of ['README.md', 'hello.py', 'demo.sh', 'data.csv']) await expect(page.locator(`[data-path="/home/user/${name}"]`)).toBeVisible();
  await expect(page.getByRole('tab', { name: /^hello\.py/ })).toBeVisible({ timeout: 30_000 });
  expect((await sandboxRun(page, 'bash demo.sh | head -2')).stdout).toBe('Hello, sandbox!\nsquare of 1 is 1\n');
  expect((await sandboxRun(page, 'test -x demo.sh && grep -c Try README.md')).stdout).toBe('1\n');
  // The first python3 of a page loads Pyodide inside the run (its clock stops meanwhile,
  // docs/python.md); loaded first here, so the Run below shows its output well within the
  // expectation's timeout on a loaded machine.
  await page.evaluate(() => (window as unknown as { airlock: { controller: { run(c: string, o: object): Promise<unknown> } } }).airlock.controller.run('python3 -c pass', { timeoutMs: 180_000 }));
  await page.locator('#run-file').click();
  await expect(terminalText(page)).toContainText('Hello from Python! 5 people in data.csv', { timeout: 60_000 });
  await waitIdle(page);
  await typeInTerminal(page, "awk -F, 'NR > 1 { total += $3 } END { print total }' data.csv\n");
  await expect(terminalText(page)).toContainText('435');
  await waitIdle(page);
  // The README's picture of the playground (docs/playground.png is this, at 1400×900).
  await page.screenshot({ path: 'test-results/playground-welcome.png' });
});

test('an example from the menu opens as a new workspace; the current one is untouched', async ({ page, context }) => {
  await page.goto('/');
  await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Examples ▾' }).click();
  const opened = context.waitForEvent('page');
  await page.getByRole('list', { name: 'Example workspaces' }).getByRole('link', { name: /Text processing with the shell/ }).click();
  const example = await opened;
  await expect(example.locator('#status')).toContainText('Ready', { timeout: 30_000 });
  expect(example.url()).toContain('example=text-processing');
  await expect(example.getByRole('tab', { name: /^report\.sh/ })).toBeVisible({ timeout: 30_000 });
  expect((await sandboxRun(example, 'bash report.sh | head -2')).stdout).toBe('== requests per status\n      3 200\n');
  expect((await sandboxRun(page, 'ls')).stdout).toBe('README.md\ndata.csv\ndemo.sh\nhello.py\n');
});
