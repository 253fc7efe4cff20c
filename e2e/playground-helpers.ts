// Helpers for the playground specs: open the page on a fresh workspace, type into the
// terminal, read what it shows, and reach the controller for checks.

import { expect, type Locator, type Page } from '@playwright/test';

export interface RunResultLike {
  exitCode: number;
  stdout: string;
  stderr: string;
  errorClass: string | null;
}

export async function openPlayground(page: Page, workspace = `test-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, timeout = 30_000): Promise<string> {
  await page.goto(`/?ws=${workspace}`);
  await expect(page.locator('#status')).toContainText('Ready', { timeout });
  await expect(terminalText(page)).toContainText('user@sandbox', { timeout: 10_000 });
  return workspace;
}

export function terminalText(page: Page) {
  return page.locator('.xterm-rows');
}

export async function typeInTerminal(page: Page, text: string): Promise<void> {
  await page.locator('.xterm-helper-textarea').focus();
  await page.keyboard.type(text);
}

/** Runs a command through the current sandbox directly (not through the terminal). */
export function sandboxRun(page: Page, command: string): Promise<RunResultLike> {
  return page.evaluate(async (line) => {
    const airlock = (window as unknown as { airlock: { controller: { sandbox?: object; run(c: string): Promise<RunResultLike> } } }).airlock;
    // The sandbox is briefly absent while it is recreated (settings, reset, import); runs
    // through the controller are interrupted rather than lost when that happens.
    while (airlock.controller.sandbox === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    const result = await airlock.controller.run(line);
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, errorClass: result.errorClass };
  }, command);
}

/** Waits until the workspace is saved to IndexedDB. */
export async function waitSaved(page: Page): Promise<void> {
  await expect(page.getByTestId('save-state')).toContainText('saved', { timeout: 10_000 });
  await page.evaluate(() => (window as unknown as { airlock: { controller: { flush(): Promise<void> } } }).airlock.controller.flush());
}

/**
 * Waits for the prompt after a command: the last line is an empty prompt (the status bar
 * alone could still say idle just before the typed command starts).
 */
export async function waitIdle(page: Page): Promise<void> {
  await expect
    .poll(async () => (await terminalLines(page)).filter((line) => line.trim() !== '').pop() ?? '', { timeout: 30_000 })
    .toMatch(/^user@[\w-]+:\S*\$$/);
  await expect(page.locator('#status')).not.toContainText('Running', { timeout: 30_000 });
}

/** The terminal's visible rows, trimmed (for whole-line checks). */
export async function terminalLines(page: Page): Promise<string[]> {
  return (await page.locator('.xterm-rows > div').allTextContents()).map((line) => line.replace(/\u00a0/g, ' ').trimEnd());
}

/** The in-page dialog (confirm or prompt) the page shows now. */
export function dialog(page: Page) {
  return page.getByTestId('dialog');
}

/** Answers the in-page dialog with its button `button` (filling its field first, if given). */
export async function answerDialog(page: Page, button: string, value?: string): Promise<void> {
  const open = dialog(page);
  await expect(open).toBeVisible();
  if (value !== undefined) await open.getByRole('textbox').fill(value);
  await open.getByRole('button', { name: button, exact: true }).click();
  await expect(open).toHaveCount(0);
}

/** Creates a file with the tree's New file button (it opens in the editor). */
export async function newFile(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'New file' }).click();
  await answerDialog(page, 'Create', name);
}

/** Creates a file (newFile) and types `text` into its editor, not yet saved; the editor. */
export async function typeNewFile(page: Page, name: string, text: string): Promise<Locator> {
  await newFile(page, name);
  const editor = page.locator('.monaco-editor').first();
  await expect(editor).toBeVisible({ timeout: 30_000 });
  await editor.click();
  await page.keyboard.type(text);
  return editor;
}
