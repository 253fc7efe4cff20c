// The terminal as people use it (issue 18, item 2): lines typed or pasted while a command
// runs are queued as the next commands unless the program reads them; Ctrl+V pastes and
// Ctrl+C copies a selection; Ctrl-R searches the history; TERM, COLUMNS and LINES are set
// and follow a resize (Python sees the same size); `ls --color=auto` colours; `exit` starts
// a fresh shell; `edit FILE` opens the editor. Each failed before.

import { expect, test, type Page } from '@playwright/test';
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

// GNU's ls colours a directory (blue, 01;34) when stdout is a terminal: the playground's
// terminal renders it as a coloured cell (xterm's DOM renderer: an xterm-fg-* class).
test('ls --color=auto on the terminal colours directories', async ({ page }) => {
  await openPlayground(page);
  await sandboxRun(page, 'mkdir -p colourdir && : > plainfile');
  await typeInTerminal(page, 'ls --color=auto -d colourdir plainfile\n');
  await waitIdle(page);
  const coloured = page.locator('.xterm-rows span[class*="xterm-fg-"]', { hasText: 'colourdir' });
  await expect(coloured).toHaveCount(1);
  await expect(page.locator('.xterm-rows span[class*="xterm-fg-"]', { hasText: 'plainfile' })).toHaveCount(0);
  // Through a pipe it is not a terminal: no colour (as GNU's).
  expect((await sandboxRun(page, 'ls --color=auto -d colourdir | od -c | head -1')).stdout).not.toContain('033');
});

/** The terminal's COLUMNS and LINES and what Python's shutil.get_terminal_size() sees, typed in the terminal. */
async function sizes(page: Page, tag: string): Promise<{ shell: string; python: string }> {
  await typeInTerminal(page, `echo "${tag}-shell=$COLUMNS,$LINES"; python3 -c 'import shutil; s = shutil.get_terminal_size(); print("${tag}-python=%d,%d" % (s.columns, s.lines))'\n`);
  await expect.poll(async () => (await terminalLines(page)).some((l) => l.startsWith(`${tag}-python=`)), { timeout: 120_000 }).toBe(true);
  const lines = await terminalLines(page);
  const value = (prefix: string): string => lines.find((l) => l.startsWith(prefix))?.slice(prefix.length) ?? '';
  return { shell: value(`${tag}-shell=`), python: value(`${tag}-python=`) };
}

test("Python sees the terminal's real size, and COLUMNS follows a resize of the window", async ({ page }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1400, height: 900 });
  await openPlayground(page);
  // The first python3 of a page loads Pyodide inside the run: loaded first, with room.
  await page.evaluate(() => (window as unknown as { airlock: { controller: { run(c: string, o: object): Promise<unknown> } } }).airlock.controller.run('python3 -c pass', { timeoutMs: 180_000 }));
  const wide = await sizes(page, 'wide');
  expect(wide.shell).toMatch(/^\d+,\d+$/);
  expect(wide.python).toBe(wide.shell);
  // Not Python's fallback of 80×24 nor the 250-column guess of before.
  const [columns] = wide.shell.split(',').map(Number);
  expect(columns).toBeGreaterThan(80);
  await waitIdle(page);
  await typeInTerminal(page, 'clear\n');
  await waitIdle(page);

  await page.setViewportSize({ width: 1000, height: 700 });
  const narrow = await sizes(page, 'narrow');
  expect(narrow.python).toBe(narrow.shell);
  const [narrowColumns] = narrow.shell.split(',').map(Number);
  expect(narrowColumns).toBeLessThan(columns ?? 0);
});
