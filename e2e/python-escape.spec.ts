// The Python escape suite in Chromium: the attempts of the Node suite
// (tests/python-escape/attempts.ts) run by python3 in the playground's sandbox —
// mode 1, a nested Python worker of the kernel worker. The Python worker's realm is
// assumed compromised (docs/architecture.md §1); what must hold is that nothing gets outside the
// sandbox: no request leaves the page for anything but the app's own files, no IndexedDB
// database or record and no Cache Storage entry appears, no unexpected message reaches the
// page, and no attempt prints ESCAPED.

import { createServer, type Server } from 'node:http';
import { expect, test, type Page, type Request } from '@playwright/test';
import { ESCAPE_ATTEMPTS } from '../tests/python-escape/attempts.js';
import { openPlayground, type RunResultLike } from './playground-helpers.js';

interface StorageView {
  databases: string[];
  records: Record<string, number>;
  caches: string[];
}

/**
 * Every IndexedDB database, the record count of each of its stores, every Cache Storage key.
 * The audit outbox (`airlock-audit`) is counted by name only: the page itself (trusted, outside
 * the sandbox) queues its audit events there and drains it whenever its server takes them, so
 * its count moves with the page's shipping, not with anything a guest does.
 */
function storageView(page: Page): Promise<StorageView> {
  return page.evaluate(async () => {
    const databases = (await indexedDB.databases()).map((d) => `${d.name}@${d.version}`).sort();
    const records: Record<string, number> = {};
    for (const info of await indexedDB.databases()) {
      if (info.name === undefined || info.name === 'airlock-audit') continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(info.name as string);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        records[`${info.name}/${store}`] = await new Promise<number>((resolve, reject) => {
          const request = db.transaction(store).objectStore(store).count();
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
      }
      db.close();
    }
    const keys: string[] = [];
    for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) keys.push(`${name} ${request.url}`);
    return { databases, records, caches: keys.sort() };
  });
}

function runPython(page: Page, code: string): Promise<RunResultLike> {
  return page.evaluate(async (source) => {
    const airlock = (window as unknown as { airlock: { controller: { sandbox?: { run(c: string[], o: { timeoutMs: number }): Promise<{ exitCode: number; stdout: string; stderr: string; errorClass: string | null }> } } } }).airlock;
    while (airlock.controller.sandbox === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    const result = await airlock.controller.sandbox.run(['python3', '-c', source], { timeoutMs: 60_000 });
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, errorClass: result.errorClass };
  }, code);
}

/**
 * One suite per mode: `worker` in the playground (cross-origin isolated: a nested Python
 * worker), `inline` in the embed page (not isolated: Pyodide on the kernel thread).
 */
/** Attempts run in one embed page before a fresh one (see the loop below). */
const INLINE_ATTEMPTS_PER_PAGE = 20;

function escapeSuite(mode: 'worker' | 'inline'): void {
  test.describe(`python escape suite, ${mode === 'worker' ? 'mode 1 (playground)' : 'inline mode (embed page)'}`, () => {
    test.describe.configure({ mode: 'serial', timeout: 180_000 });

    let page: Page;
    let server: Server;
    let port = 0;
    let hostHits = 0;
    const offApp: string[] = [];
    const duringAttempts: Request[] = [];
    let recording = false;
    let before: StorageView;

    test.beforeAll(async ({ browser, baseURL }) => {
      server = createServer((_request, response) => {
        hostHits += 1;
        response.end('reached');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
      const app = new URL(baseURL ?? 'http://127.0.0.1/').origin;
      page = await (await browser.newContext()).newPage();
      // Anything that is not the app itself is refused and remembered.
      await page.context().route('**/*', (route) => {
        if (new URL(route.request().url()).origin === app) return route.continue();
        offApp.push(route.request().url());
        return route.abort();
      });
      page.context().on('request', (request) => {
        if (recording) duringAttempts.push(request);
      });
      // Messages that reach the page from any worker it started (the kernel worker, the
      // snapshot builder) or from anywhere else: only the app's own shapes are expected.
      await page.addInitScript(() => {
        const unexpected: unknown[] = [];
        (window as unknown as { __unexpectedMessages: unknown[] }).__unexpectedMessages = unexpected;
        const expected = (data: unknown): boolean => {
          if (typeof data !== 'object' || data === null) return false;
          const record = data as Record<string, unknown>;
          // comlink replies, the kernel's events, the Python port's request, the builder's answer.
          return typeof record.id === 'string' || 'airlockEvent' in record || record.op === 'need' || record.op === 'snapshot' || record.op === 'failed';
        };
        const NativeWorker = window.Worker;
        window.Worker = class extends NativeWorker {
          constructor(url: string | URL, options?: WorkerOptions) {
            super(url, options);
            this.addEventListener('message', (event) => {
              if (!expected(event.data)) unexpected.push(String(JSON.stringify(event.data)).slice(0, 200));
            });
          }
        };
        window.addEventListener('message', (event) => unexpected.push(`window: ${String(JSON.stringify(event.data)).slice(0, 200)}`));
      });
      // Both start in the playground, whose builder caches the snapshot for the origin: the
      // embed page then boots its inline interpreters from it instead of cold.
      await openPlayground(page);
      expect((await runPython(page, 'print(6 * 7)')).stdout).toBe('42\n');
      await expect.poll(async () => (await storageView(page)).caches.length, { timeout: 120_000 }).toBe(1);
      if (mode === 'inline') {
        await page.goto(`${baseURL ?? ''}embed.html?id=escape`);
        await expect(page.locator('.xterm-rows')).toContainText('user@sandbox', { timeout: 30_000 });
      }
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(mode === 'worker');
      expect((await runPython(page, 'print(6 * 7)')).stdout).toBe('42\n');
      before = await storageView(page);
      recording = true;
    });

    test.afterAll(async () => {
      await page?.context().close();
      server?.close();
    });

    test('has at least 30 attempts', () => {
      expect(ESCAPE_ATTEMPTS.length).toBeGreaterThanOrEqual(30);
    });

    for (const [index, attempt] of ESCAPE_ATTEMPTS.entries()) {
      test(`blocks: ${attempt.name}`, async ({ baseURL }) => {
        // Inline interpreters live in the kernel worker's realm, and Chromium refused a new
        // wasm memory after ~60 of them in one page (measured here; why the old ones are
        // not given back is open, see docs/python.md): a fresh embed page every 20 attempts
        // keeps this suite about the walls, not about that ceiling.
        if (mode === 'inline' && index > 0 && index % INLINE_ATTEMPTS_PER_PAGE === 0) {
          // The page's own load is not an attempt's request.
          recording = false;
          await page.goto(`${baseURL ?? ''}embed.html?id=escape`);
          await expect(page.locator('.xterm-rows')).toContainText('user@sandbox', { timeout: 30_000 });
          recording = true;
        }
        const canary = `/host-canary/${attempt.name.replace(/[^a-z0-9]+/gi, '-')}`;
        const code = attempt.code.replaceAll('CANARY', canary).replaceAll('PORT', String(port)).replaceAll('UNIXPATH', '/host-socket');
        const result = await runPython(page, code);
        const output = result.stdout + result.stderr;
        expect(output).not.toContain('ESCAPED');
        if (attempt.expect !== undefined) expect(output).toMatch(attempt.expect);
        expect(offApp).toEqual([]);
        expect(hostHits).toBe(0);
        expect(await page.evaluate(() => (window as unknown as { __unexpectedMessages: unknown[] }).__unexpectedMessages)).toEqual([]);
        // The sandbox is still usable after the attempt.
        const after = await runPython(page, 'import json; print(json.dumps(6 * 7))');
        expect(after.stdout, JSON.stringify(after)).toBe('42\n');
      });
    }

    test('after every attempt: no request but the app files, no storage written', async () => {
      recording = false;
      const app = new URL(page.url()).origin;
      for (const request of duringAttempts) {
        const url = new URL(request.url());
        expect(url.origin).toBe(app);
        // The page (trusted, outside the sandbox) posts its audit events to its own server;
        // the guest cannot reach that route: its worker has no fetch and the page's CSP
        // allows connect-src 'self' only.
        if (request.method() === 'POST' && url.pathname === '/api/audit') continue;
        // Otherwise only the app's static files (Pyodide's, loaded again by nothing here) may be fetched.
        expect(request.method(), url.pathname).toBe('GET');
        expect(url.pathname, url.pathname).toMatch(/^\/(assets|pyodide|wasm)\//);
      }
      expect(await storageView(page)).toEqual(before);
    });

    test('the watchers above do see what they watch for', async () => {
      // A request for the host server is refused by the route (the page's own fetch would not
      // even leave it: its CSP allows connect-src 'self' only)…
      const probe = await page.context().newPage();
      await probe.goto(`http://127.0.0.1:${port}/probe`).catch(() => undefined);
      await probe.close();
      expect(offApp).toEqual([`http://127.0.0.1:${port}/probe`]);
      expect(hostHits).toBe(0);
      // …and a stray message from a worker the page started is recorded.
      await page.evaluate(async () => {
        const worker = new Worker(URL.createObjectURL(new Blob(["postMessage('stray')"], { type: 'text/javascript' })));
        await new Promise((resolve) => worker.addEventListener('message', resolve, { once: true }));
        worker.terminate();
      });
      expect(await page.evaluate(() => (window as unknown as { __unexpectedMessages: unknown[] }).__unexpectedMessages)).toEqual(['"stray"']);
    });
  });
}

escapeSuite('worker');
escapeSuite('inline');
