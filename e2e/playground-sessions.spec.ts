// Sessions, settings and input in Chromium: restore points, fork into a new tab, the tool
// allowlist applied from Settings, a program reading the terminal, uploads, open tabs kept
// across a reload, and keyboard-only use of the tree and the terminal.

import { expect, test } from '@playwright/test';
import { answerDialog, openPlayground, sandboxRun, terminalText, typeInTerminal, waitIdle, waitSaved } from './playground-helpers.js';

test('a restore point brings files back and is kept across a reload; fork opens a copy in a new tab', async ({ page, context }) => {
  const workspace = await openPlayground(page);
  await sandboxRun(page, 'echo original > doc.txt');
  await page.getByRole('button', { name: 'Sessions' }).click();
  await page.getByRole('button', { name: 'Create restore point' }).click();
  await expect(page.locator('.snapshots li')).toHaveCount(1);
  await expect(page.locator('.snapshots li time')).toBeVisible();
  await sandboxRun(page, 'echo changed > doc.txt; touch extra.txt');
  await page.locator('.snapshots li').getByRole('button', { name: /^Restore/ }).click();
  await answerDialog(page, 'Restore');
  await expect.poll(async () => (await sandboxRun(page, 'cat doc.txt; ls')).stdout, { timeout: 20_000 }).toBe('original\ndoc.txt\n');
  await sandboxRun(page, 'echo again > doc.txt');
  await waitSaved(page);
  await openPlayground(page, workspace);
  await page.getByRole('button', { name: 'Sessions' }).click();
  await expect(page.locator('.snapshots li')).toHaveCount(1);
  await page.locator('.snapshots li').getByRole('button', { name: /^Restore/ }).click();
  await answerDialog(page, 'Restore');
  await expect.poll(async () => (await sandboxRun(page, 'cat doc.txt')).stdout, { timeout: 20_000 }).toBe('original\n');

  const opened = context.waitForEvent('page');
  await page.getByRole('button', { name: 'Fork into a new tab' }).click();
  const fork = await opened;
  await expect(fork.locator('#status')).toContainText('Ready', { timeout: 30_000 });
  expect(fork.url()).toContain('ws=ws-');
  expect((await sandboxRun(fork, 'cat doc.txt')).stdout).toBe('original\n');
  await sandboxRun(fork, 'echo fork-only > fork.txt');
  expect((await sandboxRun(page, 'ls')).stdout).toBe('doc.txt\n');
});

test('the tool allowlist from Settings is applied and shown', async ({ page }) => {
  await openPlayground(page);
  await sandboxRun(page, 'echo kept > a.txt');
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('Allow every installed tool').uncheck();
  await page.getByLabel(/Allowed tools/).fill('ls');
  await page.getByRole('button', { name: /^Apply/ }).click();
  await expect(page.locator('.status-bar')).toContainText('1 tools allowed');
  await expect(page.locator('#status')).toContainText('Ready');
  await typeInTerminal(page, 'cat a.txt; ls\n');
  await expect(terminalText(page)).toContainText("not allowed by this sandbox's tool allowlist");
  await expect(terminalText(page)).toContainText('a.txt');
});

test('a program reading the terminal gets what is typed', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'read -p "name? " name; echo "hello, $name"\n');
  await expect(terminalText(page)).toContainText('name?');
  await page.keyboard.type('Ada\n');
  await expect(terminalText(page)).toContainText('hello, Ada');
  await waitIdle(page);
  await typeInTerminal(page, 'head -1\n');
  await expect(page.locator('#status')).toContainText('Running');
  await page.keyboard.type('first line\n');
  await waitIdle(page);
  await expect(terminalText(page)).toContainText('first line');
});

test('uploads, open tabs kept across a reload, keyboard-only tree and terminal', async ({ page }) => {
  const workspace = await openPlayground(page);
  await page.locator('.tree-toolbar input[type=file]').setInputFiles([
    { name: 'upload.txt', mimeType: 'text/plain', buffer: Buffer.from('uploaded text\n') },
    { name: 'data.json', mimeType: 'application/json', buffer: Buffer.from('{"a": 1}\n') },
  ]);
  await expect(page.locator('[data-path="/home/user/upload.txt"]')).toBeVisible();
  expect((await sandboxRun(page, 'cat upload.txt')).stdout).toBe('uploaded text\n');

  // Drag and drop onto a folder of the tree (named to sort after the files used below).
  await sandboxRun(page, 'mkdir -p zinbox');
  const transfer = await page.evaluateHandle(() => {
    const data = new DataTransfer();
    data.items.add(new File(['dropped\n'], 'dropped.txt', { type: 'text/plain' }));
    return data;
  });
  await page.locator('[data-path="/home/user/zinbox"]').dispatchEvent('drop', { dataTransfer: transfer });
  await expect.poll(async () => (await sandboxRun(page, 'cat zinbox/dropped.txt')).stdout).toBe('dropped\n');

  // Keyboard only: focus the tree, move with the arrows, open with Enter.
  await page.locator('[data-path="/home/user/data.json"]').focus();
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('[data-path="/home/user/upload.txt"]')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab', { name: /upload\.txt/ })).toBeVisible();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab', { name: /data\.json/ })).toHaveAttribute('aria-selected', 'true');

  // A binary file is not opened in the editor; the banner says what to do instead.
  await sandboxRun(page, "printf 'a\\000b' > blob.bin");
  await page.locator('[data-path="/home/user/blob.bin"]').click();
  await expect(page.locator('.banner[data-kind="editor-open"]')).toContainText('binary');
  await expect(page.getByRole('tab', { name: /blob\.bin/ })).toHaveCount(0);

  // Shift-Tab leaves the terminal (Tab itself completes).
  await page.locator('.xterm-helper-textarea').focus();
  await page.keyboard.press('Shift+Tab');
  await expect(page.locator('.xterm-helper-textarea')).not.toBeFocused();

  await waitSaved(page);
  await openPlayground(page, workspace);
  await expect(page.getByRole('tab', { name: /upload\.txt/ })).toBeVisible();
  await expect(page.getByRole('tab', { name: /data\.json/ })).toHaveAttribute('aria-selected', 'true');
});

test('applying settings while a command runs interrupts it and the terminal goes on', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'sleep 100\n');
  await expect(page.locator('#status')).toContainText('Running');
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel(/^Run time limit/).fill('20 s');
  await page.getByRole('button', { name: /^Apply/ }).click();
  await expect(page.locator('.status-bar')).toContainText('timeout 20 s', { timeout: 20_000 });
  await waitIdle(page);
  await typeInTerminal(page, 'echo ok-$((1+2))\n');
  await expect(terminalText(page)).toContainText('ok-3');
});
