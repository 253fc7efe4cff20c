// The playground in Chromium (needs `npm run build` first): time to first prompt with a
// cold and a warm cache, keystroke-to-echo latency in the terminal, a paste of 100 command
// lines run in order, and saving and reloading a 1,000-file workspace and a workspace with
// one 200 MB file through IndexedDB. Figures only; nothing is asserted.

import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { serverConfig, startServer } from '../server/main.js';
import { percentile, type BenchRow } from './report.js';

const GROUP = 'playground';
// AIRLOCK_BENCH_WEB names another build to measure (e.g. one of an older commit, for a
// before/after comparison at the same load). AIRLOCK_BENCH_WEB_REF names a reference build
// (e.g. the commit before a change): the first-prompt runs alternate between the two, each
// figure beside the reference's, as the load on a shared machine moves. AIRLOCK_BENCH_RUNS
// sets how many (default 3 cold, and 3 warm reloads); AIRLOCK_BENCH_ONLY_START=1 stops after them.
const webRoot = process.env.AIRLOCK_BENCH_WEB ?? fileURLToPath(new URL('../dist/web', import.meta.url));
const referenceRoot = process.env.AIRLOCK_BENCH_WEB_REF;
const startRuns = Number(process.env.AIRLOCK_BENCH_RUNS ?? 3);

async function firstPromptMs(page: Page): Promise<number> {
  // Polling injects Playwright's script into the page, 20-45 ms of its main thread while it
  // is parsed: the mark is read only once the prompt is likely there, so the harness does
  // not delay what it measures (the mark's time does not depend on when it is read).
  await page.waitForTimeout(1500);
  await page.waitForFunction(() => performance.getEntriesByName('airlock-first-prompt').length > 0, undefined, { timeout: 60_000 });
  return page.evaluate(() => (performance.getEntriesByName('airlock-first-prompt')[0] as PerformanceEntry).startTime);
}

/** The first prompt of a first visit: a fresh context (empty HTTP cache, no IndexedDB). */
async function coldStart(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${url}?ws=bench-cold`);
    return await firstPromptMs(page);
  } finally {
    await context.close();
  }
}

/** A first load whose cache then holds the modules' compiled code, for warm reloads. */
async function warmUp(page: Page, url: string): Promise<void> {
  await page.goto(`${url}?ws=bench`);
  await firstPromptMs(page);
  // Chromium stores a wasm module's compiled code in the HTTP cache once its optimizing
  // tier has finished, a moment after the first load: a warm cache is one that has it.
  await page.waitForTimeout(3000);
}

function median(values: number[]): number {
  return percentile(values, 0.5);
}

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(`${webRoot}/index.html`)) throw new Error(`${webRoot}/index.html is missing: run \`npm run build\` first`);
  // The page shares the cores with whatever else runs: its times compare only at similar load.
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`bench: playground: ${webRoot}, load average ${load} on ${availableParallelism()} cores`);
  const server = await startServer(serverConfig({ server: { port: 0, web: webRoot }, log: { level: 'warn' } }));
  const reference = referenceRoot === undefined ? undefined : await startServer(serverConfig({ server: { port: 0, web: referenceRoot }, log: { level: 'warn' } }));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const rows: BenchRow[] = [];
  try {
    const ours = { cold: [] as number[], warm: [] as number[] };
    const theirs = { cold: [] as number[], warm: [] as number[] };
    for (let i = 0; i < startRuns; i += 1) {
      // Cold: a fresh context each time (empty HTTP cache, empty IndexedDB).
      ours.cold.push(await coldStart(browser, server.url));
      if (reference !== undefined) theirs.cold.push(await coldStart(browser, reference.url));
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await warmUp(page, server.url);
    const referenceContext = reference === undefined ? undefined : await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const referencePage = await referenceContext?.newPage();
    if (referencePage !== undefined && reference !== undefined) await warmUp(referencePage, reference.url);
    for (let i = 0; i < startRuns; i += 1) {
      await page.reload();
      ours.warm.push(await firstPromptMs(page));
      if (referencePage === undefined) continue;
      await referencePage.reload();
      theirs.warm.push(await firstPromptMs(referencePage));
    }
    await referenceContext?.close();
    const against = (values: number[]): Pick<BenchRow, 'reference' | 'referenceLabel'> => (reference === undefined ? {} : { reference: median(values), referenceLabel: 'reference build' });
    console.log(`bench: playground: first prompt cold ${ours.cold.map(Math.round).join(', ')} ms, warm ${ours.warm.map(Math.round).join(', ')} ms${reference === undefined ? '' : `; reference build cold ${theirs.cold.map(Math.round).join(', ')} ms, warm ${theirs.warm.map(Math.round).join(', ')} ms`}`);
    rows.push({ group: GROUP, name: `time to first prompt, cold cache (median of ${startRuns})`, value: median(ours.cold), unit: 'ms', target: '≤ 600 ms', ...against(theirs.cold) });
    rows.push({ group: GROUP, name: `time to first prompt, warm cache (median of ${startRuns})`, value: median(ours.warm), unit: 'ms', target: '≤ 200 ms', ...against(theirs.warm) });
    if (process.env.AIRLOCK_BENCH_ONLY_START === '1') {
      await context.close();
      return rows;
    }

    // Keystroke to echo: from the keydown to the terminal's DOM showing the change.
    await page.evaluate(() => {
      const samples: number[] = [];
      let pending: number | undefined;
      document.addEventListener('keydown', () => (pending = performance.now()), true);
      new MutationObserver(() => {
        if (pending === undefined) return;
        samples.push(performance.now() - pending);
        pending = undefined;
      }).observe(document.querySelector('.xterm-rows') as Element, { subtree: true, childList: true, characterData: true });
      (window as unknown as { echoSamples: number[] }).echoSamples = samples;
    });
    await page.locator('.xterm-helper-textarea').focus();
    for (let i = 0; i < 100; i += 1) await page.keyboard.type(String.fromCharCode(97 + (i % 26)), { delay: 10 });
    const echo = await page.evaluate(() => (window as unknown as { echoSamples: number[] }).echoSamples);
    rows.push({ group: GROUP, name: `keystroke to echo, p95 of ${echo.length}`, value: percentile(echo, 0.95), unit: 'ms', target: '≤ 16 ms' });
    rows.push({ group: GROUP, name: 'keystroke to echo, p50', value: percentile(echo, 0.5), unit: 'ms' });
    await page.keyboard.press('Control+C');

    // A paste of 100 command lines: each runs in turn (type-ahead); time to the last output.
    const lines = Array.from({ length: 100 }, (_, i) => `echo pasted-${i + 1}`).join('\n') + '\n';
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.evaluate((text) => navigator.clipboard.writeText(text), lines);
    const pasteStart = Date.now();
    await page.keyboard.press('Control+V');
    await page.waitForFunction(() => document.querySelector('.xterm-rows')?.textContent?.includes('pasted-100') === true && /\$\s*$/.test(document.querySelector('.xterm-rows')?.textContent ?? ''), undefined, { timeout: 120_000, polling: 20 });
    rows.push({ group: GROUP, name: 'paste of 100 command lines, run in order: time to the last output', value: Date.now() - pasteStart, unit: 'ms' });

    // A 1,000-file workspace: the save of its commit delta, then a reload from IndexedDB.
    const save = await page.evaluate(async () => {
      const controller = (window as unknown as { airlock: { controller: { sandbox: { run(c: string): Promise<{ exitCode: number }> }; flush(): Promise<void> } } }).airlock.controller;
      await controller.flush();
      await controller.sandbox.run('mkdir -p many && for i in $(seq 1000); do echo "file $i" > many/f$i.txt; done');
      const start = performance.now();
      await controller.flush();
      return performance.now() - start;
    });
    rows.push({ group: GROUP, name: 'save a 1,000-file workspace delta to IndexedDB', value: save, unit: 'ms', target: '≤ 500 ms' });
    await page.reload();
    const reloadPrompt = await firstPromptMs(page);
    const load = await page.evaluate(() => (performance.getEntriesByName('airlock-workspace-load')[0] as PerformanceEntry).duration);
    rows.push({ group: GROUP, name: 'load a 1,000-file workspace from IndexedDB', value: load, unit: 'ms', target: '≤ 500 ms' });
    rows.push({ group: GROUP, name: 'reload with a 1,000-file workspace: first prompt', value: reloadPrompt, unit: 'ms' });

    // One 200 MB file: stored in 4 MiB chunks, then read back at the next load.
    const bigSave = await page.evaluate(async () => {
      const controller = (window as unknown as { airlock: { controller: { sandbox: { run(c: string): Promise<{ exitCode: number }> }; flush(): Promise<void> } } }).airlock.controller;
      await controller.sandbox.run('rm -rf many; yes 0123456789abcdef | head -c 209715200 > big.bin');
      const start = performance.now();
      await controller.flush();
      return performance.now() - start;
    });
    rows.push({ group: GROUP, name: 'save a workspace with one 200 MB file to IndexedDB', value: bigSave, unit: 'ms' });
    await page.reload();
    const bigPrompt = await firstPromptMs(page);
    const bigLoad = await page.evaluate(() => (performance.getEntriesByName('airlock-workspace-load')[0] as PerformanceEntry).duration);
    rows.push({ group: GROUP, name: 'load a workspace with one 200 MB file from IndexedDB', value: bigLoad, unit: 'ms' });
    rows.push({ group: GROUP, name: 'reload with a 200 MB file: first prompt', value: bigPrompt, unit: 'ms' });
    await context.close();
  } finally {
    await browser.close();
    await server.close();
    await reference?.close();
  }
  return rows;
}
