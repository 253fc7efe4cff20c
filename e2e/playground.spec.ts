// The playground in Chromium: terminal (pipelines, Ctrl-C, history), editor + Run button,
// persistence across a reload, the timeout banner, export/import, and a screenshot of the
// main screen kept in test-results/ on every run.

import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { writeTar } from '../src/ui/workspace/tar.js';
import { answerDialog, newFile, openPlayground, sandboxRun, terminalLines, terminalText, typeInTerminal, typeNewFile, waitIdle, waitSaved } from './playground-helpers.js';

test('a pipeline typed in the terminal shows its output; screenshot of the main screen', async ({ page }, testInfo) => {
  await openPlayground(page);
  await expect(page.locator('#status')).toContainText('Cross-origin isolated: true');
  await typeInTerminal(page, "printf 'pear\\napple\\n' | sort | tr a-z A-Z\n");
  await expect(terminalText(page)).toContainText('APPLE');
  await expect(terminalText(page)).toContainText('PEAR');
  await typeInTerminal(page, 'false; echo "status=$?"\n');
  await expect(terminalText(page)).toContainText('status=1');
  await typeInTerminal(page, 'mkdir -p demo && echo "#!/bin/sh" > demo/hello.sh && ls demo\n');
  await expect(page.locator('[data-path="/home/user/demo"]')).toBeVisible();
  const path = testInfo.outputPath('playground-main.png');
  await page.screenshot({ path });
  await page.screenshot({ path: 'test-results/playground-main.png' });
  await testInfo.attach('main screen', { path, contentType: 'image/png' });
});

test('Ctrl-C stops sleep 100 and the shell keeps working', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'sleep 100\n');
  await expect(page.locator('#status')).toContainText('Running');
  await page.keyboard.press('Control+C');
  await waitIdle(page);
  await typeInTerminal(page, 'echo after-$((40+2))\n');
  await expect(terminalText(page)).toContainText('after-42');
});

test('tab completion and history in the terminal', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'echo one > unique-name.txt\n');
  await waitIdle(page);
  await typeInTerminal(page, 'cat uniq\t');
  await expect(terminalText(page)).toContainText('cat unique-name.txt');
  await page.keyboard.press('Enter');
  await expect.poll(() => terminalLines(page)).toContain('one');
  await waitIdle(page);
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.type(' && echo history-$((2*3))');
  await page.keyboard.press('Enter');
  await expect(terminalText(page)).toContainText('history-6');
});

test('edit a file in Monaco, save with Ctrl-S, run it with the Run button', async ({ page }) => {
  await openPlayground(page);
  await newFile(page, 'hello.sh');
  await expect(page.getByRole('tab', { name: /hello\.sh/ })).toBeVisible();
  const editor = page.locator('.monaco-editor').first();
  await expect(editor).toBeVisible({ timeout: 30_000 });
  await editor.click();
  await page.keyboard.type('echo "from script $((6*7))"');
  await expect(page.getByLabel('unsaved changes')).toBeVisible();
  await page.keyboard.press('Control+S');
  await expect(page.getByLabel('unsaved changes')).toHaveCount(0);
  expect((await sandboxRun(page, 'cat hello.sh')).stdout).toContain('from script');
  await page.locator('#run-file').click();
  await expect(terminalText(page)).toContainText('from script 42');
});

test('a .py file runs with python3 from the Run button', async ({ page }) => {
  await openPlayground(page);
  await typeNewFile(page, 'calc.py', 'print("py says", 6 * 7)');
  await page.keyboard.press('Control+S');
  await expect(page.getByLabel('unsaved changes')).toHaveCount(0);
  const hasPython = await page.evaluate(() => (window as unknown as { airlock: { controller: { view: { tools: string[] } } } }).airlock.controller.view.tools.includes('python3'));
  expect(hasPython).toBe(true);
  await page.locator('#run-file').click();
  // The first python3 of a page also loads Pyodide.
  await expect(terminalText(page)).toContainText('py says 42', { timeout: 60_000 });
  await expect(page.locator('.banner[data-kind="run"]')).toHaveCount(0);
});

test('files and history survive a reload', async ({ page }) => {
  const workspace = await openPlayground(page);
  await typeInTerminal(page, 'mkdir -p proj && echo persisted > proj/a.txt && chmod 600 proj/a.txt\n');
  await waitIdle(page);
  await typeInTerminal(page, 'echo remembered-command\n');
  await expect.poll(() => terminalLines(page)).toContain('remembered-command');
  await waitIdle(page);
  await waitSaved(page);
  await openPlayground(page, workspace);
  await expect(page.locator('[data-path="/home/user/proj"]')).toBeVisible();
  const check = await sandboxRun(page, 'cat proj/a.txt; stat -c %a proj/a.txt');
  expect(check.stdout).toBe('persisted\n600\n');
  await page.locator('.xterm-helper-textarea').focus();
  await page.keyboard.press('ArrowUp');
  await expect(terminalText(page)).toContainText('$ echo remembered-command');
});

test('an endless loop hits the timeout: the banner says so, earlier files are intact', async ({ page }) => {
  await openPlayground(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel(/^Run time limit/).fill('3 s');
  await page.getByRole('button', { name: /^Apply/ }).click();
  await expect(page.locator('.status-bar')).toContainText('timeout 3 s');
  await expect(page.locator('#status')).toContainText('Ready');
  await typeInTerminal(page, 'echo kept > before.txt; echo wrote-$((1+1))\n');
  await expect(terminalText(page)).toContainText('wrote-2');
  await waitIdle(page);
  await typeInTerminal(page, 'while true; do :; done\n');
  await expect(page.locator('.banner[data-kind="timeout"]')).toContainText('time limit', { timeout: 30_000 });
  await waitIdle(page);
  await typeInTerminal(page, 'cat before.txt && echo still-$((1+1))\n');
  await expect(terminalText(page)).toContainText('still-2');
  // Polled: on a loaded machine a run can itself meet the short limit set above.
  await expect.poll(async () => (await sandboxRun(page, 'cat before.txt')).stdout, { timeout: 20_000 }).toBe('kept\n');
});

test('export a workspace, reset, import it back: the same files', async ({ page }) => {
  await openPlayground(page);
  const listing = 'find . | sort; cat notes/a.txt; stat -c "%a %n" run.sh; stat -c "%Y %n" notes/a.txt notes';
  await sandboxRun(page, 'mkdir -p notes/deep && echo alpha > notes/a.txt && printf "x%.0s" $(seq 300) > notes/deep/b.txt && echo "echo hi" > run.sh && chmod 755 run.sh && touch -d @1700000000 notes/a.txt notes');
  const before = await sandboxRun(page, listing);
  await page.getByRole('button', { name: 'Sessions' }).click();
  const downloadPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export (.tar.gz)' }).click();
  const download = await downloadPromise;
  const archive = test.info().outputPath('workspace.tar.gz');
  await download.saveAs(archive);
  await page.getByRole('button', { name: 'Reset workspace…' }).click();
  await answerDialog(page, 'Reset');
  await expect.poll(async () => (await sandboxRun(page, 'ls -A')).stdout).toBe('');
  await page.getByTestId('import-input').setInputFiles(archive);
  await answerDialog(page, 'Replace and import');
  await expect(page.locator('.banner[data-kind="import"]')).toContainText('Imported');
  expect(await sandboxRun(page, listing)).toEqual(before);
});

test('an archive that would escape the workspace is refused before anything changes', async ({ page }) => {
  await openPlayground(page);
  await sandboxRun(page, 'echo precious > keep.txt');
  const archive = writeTar([
    { path: 'fine.txt', kind: 'file', mode: 0o644, mtimeMs: 0, data: new TextEncoder().encode('ok\n') },
    { path: '../../etc/evil', kind: 'file', mode: 0o644, mtimeMs: 0, data: new TextEncoder().encode('x') },
  ]);
  await page.getByRole('button', { name: 'Sessions' }).click();
  await page.getByTestId('import-input').setInputFiles({ name: 'evil.tar.gz', mimeType: 'application/gzip', buffer: gzipSync(archive) });
  await expect(page.locator('.banner[data-kind="import"]')).toContainText('evil.tar.gz was not imported');
  await expect(page.locator('.banner[data-kind="import"]')).toContainText("'..' would leave the workspace");
  expect((await sandboxRun(page, 'ls; cat keep.txt')).stdout).toBe('keep.txt\nprecious\n');
});
