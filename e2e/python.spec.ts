// python3 in Chromium (docs/python.md, "Browser"): mode 1 — a nested Python worker of the
// sandbox worker, Pyodide's files served by the app and handed down by the page — driven
// from the playground's terminal like a user would, plus the snapshot cache of the page.

import { expect, test, type Page } from '@playwright/test';
import { openPlayground, terminalLines, terminalText, typeInTerminal, waitIdle, type RunResultLike } from './playground-helpers.js';

/** A run through the controller with its own time limit. */
function runWith(page: Page, command: string, timeoutMs?: number): Promise<RunResultLike> {
  return page.evaluate(async ({ line, timeoutMs }) => {
    const airlock = (window as unknown as { airlock: { controller: { sandbox?: object; run(c: string, o?: { timeoutMs?: number }): Promise<RunResultLike> } } }).airlock;
    while (airlock.controller.sandbox === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    const result = await airlock.controller.run(line, timeoutMs === undefined ? {} : { timeoutMs });
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, errorClass: result.errorClass };
  }, { line: command, timeoutMs });
}

/** The snapshot cache entries the page has (Cache Storage), by URL. */
function snapshotEntries(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const cache = await caches.open('airlock-python-snapshot');
    return (await cache.keys()).map((request) => request.url);
  });
}

test.describe.configure({ timeout: 120_000 });

test('python3 in the terminal: -c, a script, a pipeline, subprocess, files seen by cat', async ({ page }) => {
  await openPlayground(page);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await typeInTerminal(page, "python3 -c 'import sys; print(\"py\", 6 * 7, sys.version_info[:2])'\n");
  // Python loads on first use, after the prompt: the page shows it loading, then not.
  const pythonBar = page.getByRole('progressbar', { name: /Python/ });
  await expect(pythonBar).toBeVisible();
  await expect(terminalText(page)).toContainText('py 42 (3, 14)', { timeout: 60_000 });
  await expect(pythonBar).toHaveCount(0);
  await waitIdle(page);

  // Each line and what the terminal then shows: a script, a pipeline, subprocess, a file.
  const lines: Array<[string, string]> = [
    ["printf 'import sys\\nprint(\"args:\", *sys.argv[1:])\\n' > script.py && python3 script.py one two\n", 'args: one two'],
    ["seq 1 100 | python3 -c 'import sys; print(sum(map(int, sys.stdin)))'\n", '5050'],
    ["python3 -c 'import subprocess; r = subprocess.run([\"tr\", \"a-z\", \"A-Z\"], input=\"from a child\", capture_output=True, text=True); print(r.stdout, r.returncode)'\n", 'FROM A CHILD 0'],
    ["python3 -c 'open(\"made-by-python.txt\", \"w\").write(\"written in python\\n\")' && cat made-by-python.txt\n", 'written in python'],
  ];
  for (const [line, shows] of lines) {
    await typeInTerminal(page, line);
    await expect(terminalText(page)).toContainText(shows, { timeout: 30_000 });
    await waitIdle(page);
  }

  const status = await runWith(page, "python3 -c 'import sys; sys.exit(3)'; echo status=$?");
  expect(status.stdout).toBe('status=3\n');
});

test('python3: Ctrl-C stops a busy interpreter, a busy loop ends at the time limit with 124', async ({ page }) => {
  await openPlayground(page);
  // Warm: the first run also loads Pyodide.
  expect((await runWith(page, 'python3 -c pass')).exitCode).toBe(0);
  await typeInTerminal(page, "python3 -c 'import itertools; print(\"loop\" + \"ing\", flush=True); [0 for _ in itertools.count()]'\n");
  await expect.poll(() => terminalLines(page), { timeout: 30_000 }).toContain('looping');
  await page.locator('.xterm-helper-textarea').press('Control+c');
  await waitIdle(page);
  // Interrupted by SIGINT: the shell's status is 128 + 2.
  await typeInTerminal(page, 'echo "after interrupt: $?"\n');
  await expect(terminalText(page)).toContainText('after interrupt: 130');
  await waitIdle(page);

  // No system calls in the loop: the kernel's watchdog interrupts it (KeyboardInterrupt),
  // then ends the run with the deadline's status.
  const busy = await runWith(page, "python3 -c 'while True: pass'", 3000);
  expect(busy.exitCode).toBe(124);
  // The sandbox carries on.
  expect((await runWith(page, "python3 -c 'print(1 + 1)'")).stdout).toBe('2\n');
});

test('the memory snapshot is made once, cached by the page, and a bad one falls back to a cold start', async ({ page }) => {
  const workspace = await openPlayground(page);
  expect((await runWith(page, "python3 -c 'print(\"first\")'")).stdout).toBe('first\n');
  // The page's builder worker makes the snapshot in the background and caches it.
  await expect.poll(() => snapshotEntries(page), { timeout: 90_000 }).toHaveLength(1);
  const [entry] = await snapshotEntries(page);
  expect(entry).toContain('/__airlock/python-snapshot/');

  await openPlayground(page, workspace);
  expect((await runWith(page, "python3 -c 'import json; print(json.dumps([1, 2]))'")).stdout).toBe('[1, 2]\n');

  // A damaged entry (another build, a truncated write) must not break Python.
  await page.evaluate(async (url) => {
    const cache = await caches.open('airlock-python-snapshot');
    await cache.put(url, new Response(new Uint8Array(1024 * 1024).fill(7)));
  }, entry as string);
  await openPlayground(page, workspace);
  const cold = await runWith(page, "python3 -c 'print(\"cold but fine\")'");
  expect(cold.stderr).toBe('');
  expect(cold.stdout).toBe('cold but fine\n');
});

test('on a page that is not cross-origin isolated (the embed) python3 runs inline on the kernel thread', async ({ page, baseURL }) => {
  await page.goto(`${baseURL}embed.html?id=no-sab`);
  await expect(page.locator('.xterm-rows')).toContainText('user@sandbox', { timeout: 30_000 });
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  const run = (command: string): Promise<{ exitCode: number; stdout: string; stderr: string }> =>
    page.evaluate(async (line) => {
      const controller = (window as unknown as { airlock: { controller: { run(c: string): Promise<{ exitCode: number; stdout: string; stderr: string }> } } }).airlock.controller;
      const result = await controller.run(line);
      return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    }, command);
  expect(await run("python3 -c 'print(\"inline\", 6 * 7)'")).toMatchObject({ exitCode: 0, stdout: 'inline 42\n' });
  expect((await run("seq 1 100 | python3 -c 'import sys; print(sum(map(int, sys.stdin)))'")).stdout).toBe('5050\n');
  expect((await run("python3 -c 'open(\"inline.txt\", \"w\").write(\"from inline\\n\")' && cat inline.txt")).stdout).toBe('from inline\n');
  // Two interpreters that must wait at the same time cannot, inline: a clear error, no hang.
  // The writer fills the 64 KiB pipe before the reader has read it, so one of them must wait
  // while the other waits whichever starts first (a writer of one short line may finish before
  // the reader starts, and then nothing waits).
  const both = await run("python3 -c 'print(\"x\" * 200000)' | python3 -c 'import sys; print(len(sys.stdin.read()))'");
  expect(both.stderr).toContain('Resource deadlock would occur');
  expect(both.stderr).toContain('runs inline on the kernel thread here: no SharedArrayBuffer');
});

test('python3 in the browser: urllib goes through the host policy, a refused request names it', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, "python3 -c 'import urllib.request as u, sys; sys.excepthook = lambda t, e, tb: print(\"refused:\", t.__name__, e); u.urlopen(\"http://example.com/\")'\n");
  await expect.poll(async () => (await terminalLines(page)).join('\n'), { timeout: 60_000 }).toMatch(/refused: URLError [\s\S]*network policy/);
});
