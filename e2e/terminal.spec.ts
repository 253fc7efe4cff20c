// The terminal as people use it (issue 18, item 2): lines typed or pasted while a command
// runs are queued as the next commands unless the program reads them; Ctrl+V pastes and
// Ctrl+C copies a selection; Ctrl-R searches the history; TERM, COLUMNS and LINES are set;
// `exit` starts a fresh shell; `edit FILE` opens the editor. Each failed before.

import { expect, test } from '@playwright/test';
import { openPlayground, sandboxRun, terminalLines, terminalText, typeInTerminal, waitIdle } from './playground-helpers.js';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test('lines typed while a command runs are run after it, in order', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'sleep 2\n');
  await typeInTerminal(page, 'echo typed-$((1+1))\n');
  await typeInTerminal(page, 'echo typed-$((1+2))\n');
  await expect.poll(() => terminalLines(page), { timeout: 20_000 }).toContain('typed-3');
  const lines = await terminalLines(page);
  expect(lines.indexOf('typed-2')).toBeLessThan(lines.indexOf('typed-3'));
});

test('a paste of three lines runs all three (Ctrl+V); a program that reads gets its line', async ({ page }) => {
  await openPlayground(page);
  await page.evaluate(() => navigator.clipboard.writeText('echo one-$((0+1))\necho two-$((1+1))\necho three-$((1+2))\n'));
  await page.locator('.xterm-helper-textarea').focus();
  await page.keyboard.press('Control+V');
  await expect.poll(() => terminalLines(page), { timeout: 20_000 }).toContain('three-3');
  const lines = await terminalLines(page);
  expect(lines.indexOf('one-1')).toBeLessThan(lines.indexOf('two-2'));
  await waitIdle(page);
  await page.evaluate(() => navigator.clipboard.writeText('head -1 | tr a-z A-Z\nread-by-head\necho after-$((2*2))\n'));
  await page.keyboard.press('Control+Shift+V');
  await expect.poll(() => terminalLines(page), { timeout: 20_000 }).toContain('after-4');
  expect(await terminalLines(page)).toContain('READ-BY-HEAD');
});

test('Ctrl+C with a selection copies it and interrupts nothing', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'echo copy-me-please\n');
  await expect.poll(() => terminalLines(page)).toContain('copy-me-please');
  await waitIdle(page);
  const row = page.locator('.xterm-rows > div', { hasText: /^copy-me-please/ });
  const box = await row.boundingBox();
  if (box === null) throw new Error('no output row');
  await page.mouse.dblclick(box.x + 20, box.y + box.height / 2);
  await page.keyboard.press('Control+C');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/copy/);
  await typeInTerminal(page, 'echo still-$((3*3))\n');
  await expect.poll(() => terminalLines(page)).toContain('still-9');
  expect((await terminalLines(page)).filter((l) => l.endsWith('^C'))).toEqual([]);
});

test('Ctrl-R finds an earlier command', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'echo needle-$((40+2))\n');
  await waitIdle(page);
  await typeInTerminal(page, 'echo other\n');
  await waitIdle(page);
  await page.keyboard.press('Control+R');
  await page.keyboard.type('needle');
  await expect(terminalText(page)).toContainText("(reverse-i-search)`needle': echo needle-$((40+2))");
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await terminalLines(page)).filter((l) => l === 'needle-42').length).toBe(2);
});

test('programs see TERM, COLUMNS and LINES of the terminal', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'echo "term=$TERM cols=$COLUMNS lines=$LINES"; test -t 1 && echo is-a-tty\n');
  await expect.poll(() => terminalLines(page)).toContain('is-a-tty');
  const line = (await terminalLines(page)).find((l) => l.startsWith('term=')) ?? '';
  expect(line).toMatch(/^term=xterm-256color cols=\d+ lines=\d+$/);
  const cols = Number(/cols=(\d+)/.exec(line)?.[1]);
  expect(cols).toBeGreaterThan(40);
});

test('exit ends the shell and a fresh one starts, with the files kept', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'X=kept-in-shell; cd /tmp; echo file > ~/f.txt\n');
  await waitIdle(page);
  await typeInTerminal(page, 'exit\n');
  await expect(terminalText(page)).toContainText('a fresh shell starts', { timeout: 20_000 });
  await waitIdle(page);
  await typeInTerminal(page, 'echo "[$X] $PWD $(cat f.txt)"\n');
  await expect.poll(() => terminalLines(page)).toContain('[] /home/user file');
});

test('edit FILE opens it in the editor, creating it if needed', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'mkdir -p src && cd src\n');
  await waitIdle(page);
  await typeInTerminal(page, 'edit notes.md\n');
  await expect(page.getByRole('tab', { name: /^notes\.md/ })).toBeVisible({ timeout: 30_000 });
  expect((await sandboxRun(page, 'ls /home/user/src')).stdout).toBe('notes.md\n');
});
