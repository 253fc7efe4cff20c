// airlock/playwright used as users use it (issue 18, item 8): the Node `sandbox` fixture,
// an embedded sandbox in a page under test on another origin, and toHaveOutput.

import { createServer, type Server } from 'node:http';
import { expect, test } from '../src/playwright/index.js';

let server: Server;
let appUrl = '';

test.beforeAll(async () => {
  // The "application under test": a plain page on another origin than the Airlock server.
  server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>My docs</title><h1>Try it</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  appUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/`;
});

test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test.use({ sandboxOptions: { files: { 'greeting.txt': 'hello\n' } }, airlockUrl: `http://127.0.0.1:${process.env.AIRLOCK_E2E_PORT ?? 4174}/` });

test('the sandbox fixture is a Node sandbox with the options given', async ({ sandbox }) => {
  expect(await sandbox.run('cat greeting.txt | tr a-z A-Z')).toHaveOutput('HELLO\n');
  expect(await sandbox.run('echo out; echo err >&2; exit 3')).toHaveOutput('out\n', { stderr: 'err\n' });
  expect(await sandbox.run('seq 3')).toHaveOutput(/^1\n2\n3\n$/);
  expect(await sandbox.run('echo a')).not.toHaveOutput('b\n');
});

test('an embedded sandbox in the page under test: run, writeFile, readFile', async ({ page, embeddedSandbox, baseURL }) => {
  test.info().annotations.push({ type: 'airlockUrl', description: baseURL ?? '' });
  await page.goto(appUrl);
  const embedded = await embeddedSandbox();
  await embedded.writeFile('data.txt', 'b\na\nc\n');
  expect(await embedded.run('sort data.txt')).toHaveOutput('a\nb\nc\n');
  await embedded.run('wc -l < data.txt > count.txt');
  expect(await embedded.readFile('count.txt')).toBe('3\n');
  await expect(embedded.frame.locator('.xterm-rows')).toContainText('sort data.txt');
  await expect(embedded.readFile('missing.txt')).rejects.toThrow(/missing\.txt/);
});
