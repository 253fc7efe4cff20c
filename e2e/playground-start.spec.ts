// The playground's start-up (docs/playground.md, "Loading"): the tool modules are
// content-hashed assets with their manifest built into the page, so a reload reads them
// from the browser's cache without asking the server; the workspace read and the tab lock
// started by the entry leave this tab the owner across reloads; keys typed before the
// prompt are kept.

import { expect, test, type Page } from '@playwright/test';
import { openPlayground, sandboxRun, terminalText, typeInTerminal } from './playground-helpers.js';

/** The page's requests for the tool modules and their manifest, with what came over the wire. */
function moduleRequests(page: Page): Promise<Array<{ name: string; transferSize: number }>> {
  return page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((entry) => /\.wasm$|manifest\.json$/.test(new URL(entry.name).pathname) && !entry.name.includes('/pyodide/'))
      .map((entry) => ({ name: new URL(entry.name).pathname, transferSize: (entry as PerformanceResourceTiming).transferSize })),
  );
}

function ownership(page: Page): Promise<string> {
  return page.evaluate(() => (window as unknown as { airlock: { controller: { view: { ownership: string } } } }).airlock.controller.view.ownership);
}

test('the modules are hashed assets fetched without the manifest, and a reload takes them from the cache', async ({ page }) => {
  const workspace = await openPlayground(page);
  const first = await moduleRequests(page);
  expect(first.map((r) => r.name).sort()).toEqual([expect.stringMatching(/^\/assets\/coreutils-[\w-]+\.wasm$/), expect.stringMatching(/^\/assets\/shell-[\w-]+\.wasm$/)]);
  // The shell's module is asked for by the page's <head> (one request: the script takes it).
  await expect(page.locator('head link[rel=preload][as=fetch][href*="/assets/shell-"]')).toHaveCount(1);
  expect(await ownership(page)).toBe('owner');

  await sandboxRun(page, 'echo kept > start.txt');
  await page.evaluate(() => (window as unknown as { airlock: { controller: { flush(): Promise<void> } } }).airlock.controller.flush());
  for (let i = 0; i < 3; i += 1) {
    await page.reload();
    await openPlayground(page, workspace);
    // From the HTTP cache: nothing over the wire, not even a revalidation.
    const again = await moduleRequests(page);
    expect(again).toHaveLength(2);
    for (const request of again) expect(request.transferSize, request.name).toBe(0);
    // The lock the entry asked for before the page had loaded is this tab's.
    expect(await ownership(page)).toBe('owner');
    expect((await sandboxRun(page, 'cat start.txt')).stdout).toBe('kept\n');
  }
});

test('keys typed before the prompt are run once it is there', async ({ page }) => {
  await page.goto(`/?ws=start-${Date.now()}`);
  await typeInTerminal(page, 'echo early-$((6*7))\n');
  await expect(terminalText(page)).toContainText('early-42', { timeout: 30_000 });
});

test('a tool typed at the first prompt runs, though its module is sent after the shell\'s', async ({ page }) => {
  // The sandbox starts with the shell's module; coreutils follows (docs/playground.md, "Loading").
  await page.goto(`/?ws=start-tool-${Date.now()}`);
  await typeInTerminal(page, 'seq 3 | wc -l | sed s/^/lines-/\n');
  await expect(terminalText(page)).toContainText('lines-3', { timeout: 30_000 });
});

interface StartController {
  sandbox?: { limits: { timeoutMs: number }; sessionId: string };
  audit: { state: { events: ReadonlyArray<{ type: string; sessionId?: string }> } };
  applySettings(settings: { networkAllow: string[]; tools: null; limits: Record<string, number>; packageRegistry: null; pythonIndex: null }): Promise<void>;
  flush(): Promise<void>;
}

test('the sandbox the entry starts from the saved workspace has its settings, and is the only one the page makes', async ({ page }) => {
  const workspace = await openPlayground(page);
  await page.evaluate(async () => {
    const controller = (window as unknown as { airlock: { controller: StartController } }).airlock.controller;
    await controller.applySettings({ networkAllow: [], tools: null, limits: { timeoutMs: 12_000 }, packageRegistry: null, pythonIndex: null });
    await controller.flush();
  });
  await sandboxRun(page, 'echo saved > early.txt');
  await page.evaluate(() => (window as unknown as { airlock: { controller: StartController } }).airlock.controller.flush());
  await page.reload();
  await openPlayground(page, workspace);
  const seen = await page.evaluate(() => {
    const controller = (window as unknown as { airlock: { controller: StartController } }).airlock.controller;
    return { timeoutMs: controller.sandbox?.limits.timeoutMs, created: controller.audit.state.events.filter((event) => event.type === 'sandbox.created').length };
  });
  expect(seen).toEqual({ timeoutMs: 12_000, created: 1 });
  expect((await sandboxRun(page, 'cat early.txt')).stdout).toBe('saved\n');
});
