// Full-screen programs in the playground's terminal (issue 18, item 2): less pages a pipe
// (space, search, q) with every key going to it as typed, top shows the processes until q,
// man shows a page in the pager, ps lists the processes; the terminal is a line terminal
// again after each, with what was on the screen before.

import { expect, test } from '@playwright/test';
import { openPlayground, terminalLines, typeInTerminal, waitIdle } from './playground-helpers.js';

test.use({ viewport: { width: 1280, height: 720 } });

/** Presses keys one by one (the pager reads each as it is typed). */
async function keys(page: import('@playwright/test').Page, text: string): Promise<void> {
  for (const key of text) await page.keyboard.type(key);
}

test('less pages a pipe: a screen, space, /search, q back to the prompt', async ({ page }) => {
  test.setTimeout(120_000);
  await openPlayground(page);
  await typeInTerminal(page, 'echo before-the-pager\n');
  await waitIdle(page);
  await typeInTerminal(page, 'seq 1000 | less\n');
  // The pager's first screen: 1, 2, ... and its ':' prompt on the last row.
  await expect.poll(async () => (await terminalLines(page))[0], { timeout: 30_000 }).toBe('1');
  await expect.poll(async () => (await terminalLines(page)).filter((line) => line !== '').pop()).toBe(':');
  const rows = (await terminalLines(page)).filter((line) => /^\d+$/.test(line)).length;
  expect(rows).toBeGreaterThan(5);
  await keys(page, ' ');
  await expect.poll(async () => (await terminalLines(page))[0]).toBe(String(rows + 1));
  await keys(page, '/777');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await terminalLines(page))[0]).toBe('777');
  await keys(page, 'q');
  await waitIdle(page);
  // The screen from before the pager is back, and the terminal edits lines again.
  expect(await terminalLines(page)).toContain('before-the-pager');
  await typeInTerminal(page, 'echo after-$((6*7))\n');
  await expect.poll(() => terminalLines(page)).toContain('after-42');
});

test('top runs until q; man shows a page in the pager; ps lists the shell', async ({ page }) => {
  test.setTimeout(120_000);
  await openPlayground(page);
  await typeInTerminal(page, 'top -d 1\n');
  await expect.poll(async () => (await terminalLines(page)).join('\n'), { timeout: 30_000 }).toMatch(/Tasks: +\d+ total[\s\S]*PID USER +PR +NI[\s\S]* top/);
  await keys(page, 'q');
  await waitIdle(page);
  await typeInTerminal(page, 'man grep\n');
  await expect.poll(async () => (await terminalLines(page))[0], { timeout: 30_000 }).toMatch(/^GREP\(1\) +User Commands +GREP\(1\)$/);
  await expect.poll(async () => (await terminalLines(page)).filter((line) => line !== '').pop()).toContain('Manual page grep(1)');
  await keys(page, 'q');
  await waitIdle(page);
  await typeInTerminal(page, 'ps\n');
  await waitIdle(page);
  const lines = await terminalLines(page);
  const header = lines.lastIndexOf('    PID TTY          TIME CMD');
  expect(header).toBeGreaterThanOrEqual(0);
  expect(lines.slice(header)).toEqual(expect.arrayContaining([expect.stringMatching(/^ +1 pts\/0 +\d\d:\d\d:\d\d bash$/), expect.stringMatching(/^ +\d+ pts\/0 +\d\d:\d\d:\d\d ps$/)]));
});
