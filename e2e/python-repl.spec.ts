// python3's interactive console in the terminal (issue 18, item 3): `python3` alone on a
// terminal and `python3 -i script.py` give >>> / ... prompts, multi-line blocks, tracebacks,
// history (↑), KeyboardInterrupt on Ctrl-C (the console goes on), and Ctrl-D to leave.

import { expect, test, type Page } from '@playwright/test';
import { openPlayground, sandboxRun, terminalLines, terminalText, typeInTerminal, waitIdle } from './playground-helpers.js';

/** The last non-empty line of the terminal. */
async function lastLine(page: Page): Promise<string> {
  return (await terminalLines(page)).filter((line) => line.trim() !== '').pop() ?? '';
}

/**
 * The first python3 of a page downloads Pyodide and makes its snapshot, which on a loaded
 * machine can take longer than the 30 s run limit: load it once with room to spare.
 */
async function warmPython(page: Page): Promise<void> {
  const result = await page.evaluate(async () => {
    const run = await (window as unknown as { airlock: { controller: { run(c: string, o: object): Promise<{ exitCode: number; stderr: string; errorClass: string | null }> } } }).airlock.controller.run('python3 -c pass', { timeoutMs: 180_000 });
    return { exitCode: run.exitCode, stderr: run.stderr, errorClass: run.errorClass };
  });
  expect(result.exitCode, JSON.stringify(result)).toBe(0);
}

async function waitForPrompt(page: Page, prompt = '>>>'): Promise<void> {
  await expect.poll(() => lastLine(page), { timeout: 60_000 }).toBe(prompt);
}

test('python3 alone is an interactive console', async ({ page }) => {
  test.setTimeout(300_000);
  await openPlayground(page);
  await warmPython(page);
  await typeInTerminal(page, 'python3\n');
  await expect(terminalText(page)).toContainText('Type "help", "copyright", "credits" or "license" for more information.', { timeout: 60_000 });
  await waitForPrompt(page);
  await typeInTerminal(page, 'x = 6 * 7\n');
  await waitForPrompt(page);
  await typeInTerminal(page, 'x\n');
  await expect.poll(() => terminalLines(page)).toContain('42');
  await waitForPrompt(page);

  // A block: `...` until an empty line.
  await typeInTerminal(page, 'for i in range(2):\n');
  await waitForPrompt(page, '...');
  await typeInTerminal(page, "\tprint('row', i * 10)\n");
  await waitForPrompt(page, '...');
  await typeInTerminal(page, '\n');
  await expect.poll(() => terminalLines(page)).toContain('row 10');
  await waitForPrompt(page);

  // A traceback, and the console goes on.
  await typeInTerminal(page, '1 / 0\n');
  await expect.poll(() => terminalLines(page)).toContain('ZeroDivisionError: division by zero');
  await waitForPrompt(page);

  // History: ↑ brings back the last line typed to the console.
  await page.keyboard.press('ArrowUp');
  await expect.poll(() => lastLine(page)).toBe('>>> 1 / 0');
  await page.keyboard.press('Control+U');

  // Ctrl-C: KeyboardInterrupt at the prompt and in a busy loop; the console survives.
  await page.keyboard.press('Control+C');
  await expect.poll(() => terminalLines(page)).toContain('KeyboardInterrupt');
  await waitForPrompt(page);
  await typeInTerminal(page, 'while True: pass\n');
  await waitForPrompt(page, '...');
  await typeInTerminal(page, '\n');
  await expect(page.locator('#status')).toContainText('Running');
  await page.waitForTimeout(500);
  await page.keyboard.press('Control+C');
  await expect.poll(async () => (await terminalLines(page)).filter((l) => l === 'KeyboardInterrupt').length, { timeout: 20_000 }).toBe(2);
  await waitForPrompt(page);
  await typeInTerminal(page, 'print("alive", x)\n');
  await expect.poll(() => terminalLines(page)).toContain('alive 42');
  await waitForPrompt(page);

  // Ctrl-D leaves it; the shell is back.
  await page.keyboard.press('Control+D');
  await waitIdle(page);
  await typeInTerminal(page, 'echo back-in-$((2+3))\n');
  await expect.poll(() => terminalLines(page)).toContain('back-in-5');
});

test('python3 -i script.py runs the script, then the console in its namespace', async ({ page }) => {
  test.setTimeout(300_000);
  await openPlayground(page);
  await warmPython(page);
  await sandboxRun(page, "printf 'greeting = \"hello from the script\"\\nprint(\"ran\")\\n' > script.py");
  await typeInTerminal(page, 'python3 -i script.py\n');
  await expect.poll(() => terminalLines(page), { timeout: 60_000 }).toContain('ran');
  await waitForPrompt(page);
  await typeInTerminal(page, 'greeting.upper()\n');
  await expect.poll(() => terminalLines(page)).toContain("'HELLO FROM THE SCRIPT'");
  await waitForPrompt(page);
  await typeInTerminal(page, 'exit()\n');
  await waitIdle(page);
});
