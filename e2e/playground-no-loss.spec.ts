// Nothing is ever lost (issue 18, item 1): each test here failed on the playground before
// the fix. An import takes only real archives (tar, tar.gz, zip), shows what it will do, asks, and keeps a
// restore point; tabs follow renames and deletes; editor changes are saved on their own and
// leaving with unsaved work asks first; a file of 150 MB (under the 256 MiB disk limit) is
// stored and comes back; a storage failure is told in plain words.

import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { expect, test, type Page } from '@playwright/test';
import { writeTar } from '../src/ui/workspace/tar.js';
import { answerDialog, dialog, newFile, openPlayground, sandboxRun, typeInTerminal, typeNewFile, waitIdle, waitSaved } from './playground-helpers.js';

async function importFile(page: Page, name: string, buffer: Buffer): Promise<void> {
  if (!(await page.getByTestId('import-input').count())) await page.getByRole('button', { name: 'Sessions' }).click();
  await page.getByTestId('import-input').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
}

const tab = (page: Page, name: string) => page.getByRole('tab', { name: new RegExp(`^${name.replace('.', '\\.')}`) });

test('a short text file is not taken for an empty archive: refused, nothing replaced', async ({ page }) => {
  await openPlayground(page);
  await sandboxRun(page, 'echo precious > keep.txt');
  await importFile(page, 'notes.txt', Buffer.from('just a note\n'));
  const banner = page.locator('.banner[data-kind="import"]');
  await expect(banner).toContainText('notes.txt was not imported: this file is not an archive');
  await expect(banner).toContainText('Nothing was changed');
  await expect(dialog(page)).toHaveCount(0);
  expect((await sandboxRun(page, 'ls; cat keep.txt')).stdout).toBe('keep.txt\nprecious\n');
});

test('a gzipped text file is refused, nothing replaced', async ({ page }) => {
  await openPlayground(page);
  await sandboxRun(page, 'echo precious > keep.txt');
  await importFile(page, 'log.gz', gzipSync(Buffer.from('line one\nline two\n')));
  await expect(page.locator('.banner[data-kind="import"]')).toContainText('log.gz was not imported: this is a gzip file but not a compressed tar archive');
  expect((await sandboxRun(page, 'ls; cat keep.txt')).stdout).toBe('keep.txt\nprecious\n');
});

test('an import shows what it holds and asks; cancelling changes nothing; accepting keeps a restore point', async ({ page }) => {
  await openPlayground(page);
  await sandboxRun(page, 'echo old > old.txt');
  const archive = gzipSync(writeTar([{ path: 'new.txt', kind: 'file', mode: 0o644, mtimeMs: 0, data: new TextEncoder().encode('new\n') }]));
  await importFile(page, 'project.tar.gz', archive);
  await expect(dialog(page)).toContainText('Replace the workspace with project.tar.gz?');
  await expect(dialog(page)).toContainText('1 file (4 bytes)');
  await expect(dialog(page)).toContainText('new.txt');
  await expect(dialog(page)).toContainText('now holds 1 file');
  await answerDialog(page, 'Cancel');
  expect((await sandboxRun(page, 'ls')).stdout).toBe('old.txt\n');

  await importFile(page, 'project.tar.gz', archive);
  await answerDialog(page, 'Replace and import');
  await expect(page.locator('.banner[data-kind="import"]')).toContainText('Imported 1 file (4 bytes) from project.tar.gz');
  expect((await sandboxRun(page, 'ls')).stdout).toBe('new.txt\n');
  await expect(page.locator('.snapshots li')).toContainText('Before importing project.tar.gz');
  await page.locator('.snapshots li').getByRole('button', { name: /^Restore/ }).click();
  await answerDialog(page, 'Restore');
  await expect.poll(async () => (await sandboxRun(page, 'ls')).stdout, { timeout: 20_000 }).toBe('old.txt\n');
});

test('a zip archive imports in the browser: asked first, its files and folders in place', async ({ page }) => {
  await openPlayground(page);
  await sandboxRun(page, 'echo old > old.txt');
  const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
  const zip = Buffer.from(zipSync({ 'README.md': encode('# zipped\n'), 'src/main.py': encode('print("from a zip")\n'), 'src/data/rows.csv': encode('a,b\n1,2\n') }));
  await importFile(page, 'project.zip', zip);
  await expect(dialog(page)).toContainText('Replace the workspace with project.zip?');
  await expect(dialog(page)).toContainText('3 files');
  await expect(dialog(page)).toContainText('src/main.py');
  await answerDialog(page, 'Replace and import');
  await expect(page.locator('.banner[data-kind="import"]')).toContainText('Imported 3 files');
  expect((await sandboxRun(page, 'find . -type f | sort; cat src/main.py src/data/rows.csv')).stdout).toBe('./README.md\n./src/data/rows.csv\n./src/main.py\nprint("from a zip")\na,b\n1,2\n');
  await expect(page.locator('[data-path="/home/user/src"]')).toBeVisible();
  await expect(page.locator('.snapshots li')).toContainText('Before importing project.zip');
});

test('renaming an open file in the tree moves its tab; saving does not bring the old file back', async ({ page }) => {
  await openPlayground(page);
  const editor = await typeNewFile(page, 'draft.sh', 'echo drafted');
  await page.locator('[data-path="/home/user/draft.sh"]').click();
  await page.keyboard.press('F2');
  await answerDialog(page, 'Rename', 'final.sh');
  await expect(tab(page, 'final.sh')).toBeVisible();
  await expect(tab(page, 'draft.sh')).toHaveCount(0);
  await editor.click();
  await page.keyboard.press('End');
  await page.keyboard.type(' again');
  await page.keyboard.press('Control+S');
  await expect(page.getByLabel('unsaved changes')).toHaveCount(0);
  expect((await sandboxRun(page, 'ls; cat final.sh')).stdout).toBe('final.sh\necho drafted again');
});

test('deleting an open file closes its tab, from the tree or from the terminal', async ({ page }) => {
  await openPlayground(page);
  await sandboxRun(page, 'echo a > a.txt; echo b > b.txt');
  await page.locator('[data-path="/home/user/a.txt"]').click();
  await page.locator('[data-path="/home/user/b.txt"]').click();
  await expect(tab(page, 'a.txt')).toBeVisible();
  await expect(tab(page, 'b.txt')).toBeVisible();
  await page.locator('[data-path="/home/user/a.txt"]').click();
  await page.keyboard.press('Delete');
  await expect(dialog(page)).toContainText('its editor tab closed');
  await answerDialog(page, 'Delete');
  await expect(tab(page, 'a.txt')).toHaveCount(0);
  await typeInTerminal(page, 'rm b.txt\n');
  await waitIdle(page);
  await expect(tab(page, 'b.txt')).toHaveCount(0);
  await expect(page.locator('.banner[data-kind="editor-gone"]')).toContainText('b.txt was deleted or moved');
  expect((await sandboxRun(page, 'ls -A')).stdout).toBe('');
});

test('editor changes are saved on their own and survive a reload', async ({ page }) => {
  const workspace = await openPlayground(page);
  await typeNewFile(page, 'notes.md', 'typed but never saved by hand');
  await expect(page.getByLabel('unsaved changes')).toHaveCount(0, { timeout: 10_000 });
  await waitSaved(page);
  await openPlayground(page, workspace);
  expect((await sandboxRun(page, 'cat notes.md')).stdout).toBe('typed but never saved by hand');
});

test('leaving with changes not yet saved asks first', async ({ page }) => {
  await openPlayground(page);
  await newFile(page, 'quick.txt');
  const editor = page.locator('.monaco-editor').first();
  await expect(editor).toBeVisible({ timeout: 30_000 });
  await editor.click();
  const asked = new Promise<string>((resolve) => page.once('dialog', (d) => (resolve(d.type()), void d.dismiss())));
  await page.keyboard.type('x');
  await page.close({ runBeforeUnload: true });
  expect(await asked).toBe('beforeunload');
});

test('a 150 MB file is stored and comes back after a reload; later changes still save', async ({ page }) => {
  test.setTimeout(240_000);
  const workspace = await openPlayground(page);
  const made = await sandboxRun(page, 'yes 0123456789abcdef | head -c 157286400 > big.bin && wc -c < big.bin && md5sum big.bin');
  expect(made.stdout).toMatch(/^157286400\n[0-9a-f]{32}  big.bin\n$/);
  await expect(page.getByTestId('save-state')).toContainText('saved', { timeout: 120_000 });
  await page.evaluate(() => (window as unknown as { airlock: { controller: { flush(): Promise<void> } } }).airlock.controller.flush());
  await expect(page.locator('.banner[data-kind="save"]')).toHaveCount(0);
  await sandboxRun(page, 'echo after > after.txt');
  await waitSaved(page);
  const reload = Date.now();
  await openPlayground(page, workspace, 120_000);
  test.info().annotations.push({ type: 'reload with 150 MB', description: `${Date.now() - reload} ms` });
  const back = await sandboxRun(page, 'wc -c < big.bin && md5sum big.bin; cat after.txt');
  expect(back.stdout).toBe(`${made.stdout}after\n`);
});

test('a storage failure is told in plain words, and what to do', async ({ page }) => {
  await openPlayground(page);
  await sandboxRun(page, 'echo safe > kept.txt');
  await waitSaved(page);
  await page.evaluate(() => {
    IDBObjectStore.prototype.put = function put(): IDBRequest {
      throw new DOMException('The database connection is closing.', 'InvalidStateError');
    };
  });
  await sandboxRun(page, 'echo more > more.txt');
  const banner = page.locator('.banner[data-kind="save"]');
  await expect(banner).toContainText('Saving failed: the browser closed the site’s storage', { timeout: 10_000 });
  await expect(banner).toContainText('The stored workspace is the last complete save');
  await expect(banner).toContainText('Export the workspace (Sessions) to keep a copy, then reload the page');
  await expect(page.getByTestId('save-state')).toContainText('not saved');
});
