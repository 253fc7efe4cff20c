// The docs embed from a parent page on another origin (a second server on another port of
// 127.0.0.1, not cross-origin isolated): the example docs page's two sandboxes load, answer
// the postMessage API (run, writeFile, readFile, reset) and send output/exit/resize events;
// messages from origins that are not allowed are ignored.

import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';

let server: Server;
let parentUrl = '';

test.beforeAll(async () => {
  const example = readFileSync(new URL('../docs/embed-example.html', import.meta.url), 'utf8');
  server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(req.url?.startsWith('/blank') ? '<!doctype html><title>blank</title>' : example);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  parentUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/`;
});

test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('embed.html is served without COOP/COEP and may be framed', async ({ request, baseURL }) => {
  const response = await request.get(`${baseURL}embed.html`);
  expect(response.status()).toBe(200);
  expect(response.headers()['cross-origin-embedder-policy']).toBeUndefined();
  expect(response.headers()['cross-origin-opener-policy']).toBeUndefined();
  expect(response.headers()['content-security-policy']).toContain('frame-ancestors *');
});

test('two embedded sandboxes on a page of another origin answer the postMessage API', async ({ page, baseURL }) => {
  await page.goto(`${parentUrl}?airlock=${encodeURIComponent(baseURL ?? '')}`);
  expect(await page.evaluate(() => globalThis.crossOriginIsolated)).toBe(false);
  const first = page.frameLocator('#first');
  await expect(first.locator('.xterm-rows')).toContainText('a', { timeout: 30_000 });
  await expect(first.locator('.xterm-rows')).toContainText('c');
  const second = page.frameLocator('#second');
  await expect(second.getByRole('textbox', { name: 'hello.sh' })).toHaveValue(/hello from a docs page/, { timeout: 30_000 });

  // The example's button: writeFile, run, readFile through postMessage.
  await page.getByRole('button', { name: 'Count words in the second sandbox' }).click();
  await expect(page.locator('#answer')).toHaveText('4 words.txt\n', { timeout: 30_000 });

  // Events: output and exit of a run, and the result of each request.
  const replies = await page.evaluate(async () => {
    const example = (window as unknown as { airlockExample: { request(frame: HTMLIFrameElement, m: object): Promise<{ ok: boolean; value?: unknown; error?: string }>; second: HTMLIFrameElement } }).airlockExample;
    const events: Array<{ type: string; text?: string; exitCode?: number }> = [];
    window.addEventListener('message', (e) => events.push(e.data as { type: string }));
    const [run, queued] = await Promise.all([
      example.request(example.second, { type: 'run', command: 'echo streamed; sleep 0.3; exit 3' }),
      example.request(example.second, { type: 'run', command: 'echo queued' }),
    ]);
    const missing = await example.request(example.second, { type: 'readFile', path: 'nope.txt' });
    const unknown = await example.request(example.second, { type: 'format-disk' });
    const malformed = await example.request(example.second, { type: 'run', cmd: 'ls' });
    const both = await example.request(example.second, { type: 'run', command: 'echo to-out; echo to-err >&2' });
    await example.request(example.second, { type: 'reset' });
    const afterReset = await example.request(example.second, { type: 'readFile', path: 'words.txt' });
    return { run, queued, missing, unknown, malformed, both, afterReset, events };
  });
  expect(replies.run).toEqual({ airlock: 1, type: 'result', id: expect.any(Number), ok: true, value: { exitCode: 3, errorClass: null, stdout: 'streamed\n', stderr: '' } });
  // Every request gets a reply: an unknown type and a malformed request, an error saying why.
  expect(replies.unknown).toMatchObject({ ok: false, error: 'unknown request type "format-disk"; the types are run, writeFile, readFile, reset, registerExtensions, extensionResult' });
  expect(replies.malformed).toMatchObject({ ok: false, error: 'a run request needs a string `command`' });
  expect(replies.both).toMatchObject({ ok: true, value: { exitCode: 0, stdout: 'to-out\n', stderr: 'to-err\n' } });
  expect(replies.queued).toMatchObject({ ok: true, value: { exitCode: 0 } });
  expect(replies.missing.ok).toBe(false);
  expect(replies.afterReset.ok).toBe(false);
  expect(replies.events.some((e) => e.type === 'output' && e.text?.includes('streamed'))).toBe(true);
  expect(replies.events.some((e) => e.type === 'exit' && e.exitCode === 3)).toBe(true);
  // The iframe was sized from the resize events.
  // The iframe was sized from the resize events to its content (8 rows of terminal).
  await expect.poll(async () => parseInt(await page.locator('#first').evaluate((f) => (f as HTMLElement).style.height), 10)).toBeGreaterThan(100);
  expect(parseInt(await page.locator('#first').evaluate((f) => (f as HTMLElement).style.height), 10)).toBeLessThan(200);
});

test('messages from an origin that is not allowed are ignored', async ({ page, baseURL }) => {
  await page.goto(`${parentUrl}blank`);
  const answered = await page.evaluate(async (base) => {
    const frame = document.createElement('iframe');
    frame.src = `${base}embed.html?origins=https://docs.example.com`;
    document.body.append(frame);
    let readyOrResult = false;
    window.addEventListener('message', (e) => {
      if ((e.data as { type?: string }).type === 'result') readyOrResult = true;
    });
    await new Promise((resolve) => frame.addEventListener('load', resolve));
    for (let i = 0; i < 20; i += 1) {
      frame.contentWindow?.postMessage({ airlock: 1, id: 1, type: 'readFile', path: '/etc/hostname' }, '*');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return readyOrResult;
  }, baseURL ?? '');
  expect(answered).toBe(false);
});

test('the embed keeps nothing unless persist=1 asks for it', async ({ page, baseURL }) => {
  const write = async (): Promise<void> => {
    await expect(page.locator('.xterm-rows')).toContainText('user@sandbox', { timeout: 30_000 });
    await page.evaluate(() => (window as unknown as { airlock: { controller: { run(c: string): Promise<unknown> } } }).airlock.controller.run('echo kept > note.txt'));
  };
  const list = (): Promise<string> =>
    page.evaluate(async () => ((await (window as unknown as { airlock: { controller: { run(c: string): Promise<{ stdout: string }> } } }).airlock.controller.run('ls')) as { stdout: string }).stdout);

  await page.goto(`${baseURL}embed.html?id=plain`);
  await write();
  await page.reload();
  await expect(page.locator('.xterm-rows')).toContainText('user@sandbox', { timeout: 30_000 });
  expect(await list()).toBe('');

  await page.goto(`${baseURL}embed.html?persist=1&id=kept`);
  await write();
  await page.evaluate(() => (window as unknown as { airlock: { controller: { flush(): Promise<void> } } }).airlock.controller.flush());
  await page.reload();
  await expect(page.locator('.xterm-rows')).toContainText('user@sandbox', { timeout: 30_000 });
  expect(await list()).toBe('note.txt\n');
});
