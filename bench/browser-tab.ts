// Issue #21's browser figure: what one playground tab costs in Chromium (needs `npm run build`
// first). In the browser a sandbox is a tab: its page, the kernel's Web Worker and every
// program's wasm run in the tab's renderer process (a dedicated worker lives in its page's
// renderer), so the renderer's memory is the sandbox's. Each tab gets its own browser
// context, so no two tabs share a renderer (as two sites in two windows would not).
//
// Read from /proc like the Node figures (RSS, and Pss, which divides the pages Chromium's
// processes share); beside them, what the page itself reports
// (`performance.measureUserAgentSpecificMemory()`: the JS heaps and DOM of the page and its
// workers, the page being cross-origin isolated) and what the whole browser grows by per tab.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { serverConfig, startServer } from '../server/main.js';
import { processMemory } from './proc-memory.js';
import { percentile, type BenchRow } from './report.js';

const GROUP = 'density';
const MIB = 1024 * 1024;
/** Tabs open at once for the per-tab growth of the whole browser. */
const TABS = 5;
/** Idle means: the page's start-up work (wasm tier-up, GC) finished a while ago. */
const SETTLE_MS = 4000;

const webRoot = process.env.AIRLOCK_BENCH_WEB ?? fileURLToPath(new URL('../dist/web', import.meta.url));
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Chromium's processes by pid and type (browser, renderer, gpu-process, utility…), from the browser's CDP. */
async function browserProcesses(browser: Browser): Promise<Map<number, string>> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: Array<{ id: number; type: string }> };
    return new Map(processInfo.map((info) => [info.id, info.type]));
  } finally {
    await cdp.detach();
  }
}

const totalPssKiB = (pids: Iterable<number>): number => [...pids].reduce((sum, pid) => sum + processMemory(pid).pssKiB, 0);

/** Opens `url` in a context of its own and returns the renderer process that came with it. */
async function openTab(browser: Browser, url: string): Promise<{ context: BrowserContext; page: Page; renderer: number }> {
  const before = await browserProcesses(browser);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  const after = await browserProcesses(browser);
  const renderers = [...after].filter(([pid, type]) => type === 'renderer' && !before.has(pid)).map(([pid]) => pid);
  // (The browser's first context may bring more than one renderer: the page's is the largest.)
  const renderer = renderers.map((pid) => ({ pid, rss: processMemory(pid).rssKiB })).sort((a, b) => b.rss - a.rss)[0]?.pid;
  if (renderer === undefined) throw new Error(`no new renderer process came with ${url}`);
  return { context, page, renderer };
}

async function untilPrompt(page: Page): Promise<void> {
  await page.waitForFunction(() => performance.getEntriesByName('airlock-first-prompt').length > 0, undefined, { timeout: 60_000, polling: 200 });
}

/** The page's own account of its memory (JS heaps and DOM of the page and its workers), in bytes. */
async function pageReportedBytes(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const measure = (performance as Performance & { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> }).measureUserAgentSpecificMemory;
    return measure === undefined ? Number.NaN : (await measure.call(performance)).bytes;
  });
}

async function run(page: Page, command: string): Promise<void> {
  const exitCode = await page.evaluate(async (line) => {
    const airlock = (window as unknown as { airlock: { controller: { run(c: string): Promise<{ exitCode: number }> } } }).airlock;
    return (await airlock.controller.run(line)).exitCode;
  }, command);
  if (exitCode !== 0) throw new Error(`\`${command}\` exited ${exitCode} in the bench's tab`);
}

export async function tabMemory(): Promise<BenchRow[]> {
  if (!existsSync(`${webRoot}/index.html`)) throw new Error(`${webRoot}/index.html is missing: run \`npm run build\` first`);
  const server = await startServer(serverConfig({ server: { port: 0, web: webRoot }, log: { level: 'warn' } }));
  // ForceEagerMeasureMemory: the page's measurement answers at once instead of at the next GC
  // (up to 20 s). No spare renderer: a new tab would take the spare and start another, and the
  // new process would not be the tab's.
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--enable-blink-features=ForceEagerMeasureMemory', '--disable-features=SpareRendererForSitePerProcess'],
  });
  const rows: BenchRow[] = [];
  try {
    // The reference: an empty page's renderer, in the same browser (its first context's
    // renderer also carries the browser's own start-up: a second one is the reference).
    await (await openTab(browser, 'about:blank')).context.close();
    const blank = await openTab(browser, 'about:blank');
    await pause(SETTLE_MS);

    const baseline = totalPssKiB((await browserProcesses(browser)).keys());
    const tabs: Array<Awaited<ReturnType<typeof openTab>>> = [];
    for (let i = 0; i < TABS; i++) {
      const tab = await openTab(browser, `${server.url}?ws=bench-tab-${i}`);
      await untilPrompt(tab.page);
      tabs.push(tab);
    }
    await pause(SETTLE_MS);
    const idle = tabs.map((tab) => processMemory(tab.renderer));
    // (Read with the tabs': Pss depends on how many processes share a page at that moment.)
    const blankMemory = processMemory(blank.renderer);
    const reported = await Promise.all(tabs.map((tab) => pageReportedBytes(tab.page)));
    const grown = (totalPssKiB((await browserProcesses(browser)).keys()) - baseline) / TABS;

    // One tab used: coreutils, a pipeline and Python (Pyodide loads on python3's first run).
    const used = tabs[0] as (typeof tabs)[number];
    await run(used.page, 'seq 200000 | sort -rn | head -1 > /tmp/top && for i in $(seq 300); do echo $i > /tmp/f$i; done && ls /tmp | wc -l');
    await run(used.page, "python3 -c 'import json; print(json.dumps(list(range(10))))'");
    await pause(SETTLE_MS);
    const usedMemory = processMemory(used.renderer);
    const usedReported = await pageReportedBytes(used.page);

    const median = (values: number[]): number => percentile(values, 0.5);
    const ref = (kib: number): Pick<BenchRow, 'reference' | 'referenceLabel'> => ({ reference: kib / 1024, referenceLabel: 'an about:blank tab' });
    const of = `median of ${TABS} tabs`;
    console.log(`bench: density: playground tab renderers idle, RSS ${idle.map((m) => (m.rssKiB / 1024).toFixed(1)).join(', ')} MiB, Pss ${idle.map((m) => (m.pssKiB / 1024).toFixed(1)).join(', ')} MiB`);
    rows.push(
      { group: GROUP, name: `browser: a playground tab idle at its first prompt, renderer RSS (${of})`, value: median(idle.map((m) => m.rssKiB)) / 1024, unit: 'MiB', ...ref(blankMemory.rssKiB) },
      { group: GROUP, name: `browser: the same, renderer Pss (shared pages divided)`, value: median(idle.map((m) => m.pssKiB)) / 1024, unit: 'MiB', ...ref(blankMemory.pssKiB) },
      { group: GROUP, name: `browser: the same, renderer anonymous memory (RssAnon)`, value: median(idle.map((m) => m.anonKiB)) / 1024, unit: 'MiB', ...ref(blankMemory.anonKiB) },
      { group: GROUP, name: `browser: the same, as the page reports it (JS heaps and DOM of the page and its workers)`, value: median(reported) / MIB, unit: 'MiB' },
      { group: GROUP, name: `browser: Pss the whole browser grows by per idle playground tab (${TABS} tabs)`, value: grown / 1024, unit: 'MiB' },
      { group: GROUP, name: 'browser: one tab after a pipeline, 300 files and python3, renderer RSS', value: usedMemory.rssKiB / 1024, unit: 'MiB' },
      { group: GROUP, name: 'browser: the same, renderer Pss', value: usedMemory.pssKiB / 1024, unit: 'MiB' },
      { group: GROUP, name: 'browser: the same, as the page reports it', value: usedReported / MIB, unit: 'MiB' },
    );
    await blank.context.close();
    for (const tab of tabs) await tab.context.close();
  } finally {
    await browser.close();
    await server.close();
  }
  return rows;
}
