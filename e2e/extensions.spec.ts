// Host extensions in Chromium (docs/extensions.md): the playground, served by a server whose
// configuration hosts extensions (a JS module, a host executable), runs them as commands
// typed in its terminal; a docs page embedding the sandbox registers an extension whose
// handler runs in that page, through the embed's postMessage API.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { serverConfig, startServer, type RunningServer } from '../server/main.js';

interface Controller {
  sandbox?: object;
  run(command: string): Promise<{ stdout: string; stderr: string; exitCode: number }>;
}

test('the playground runs the extensions its server hosts', async ({ page }) => {
  const airlock: RunningServer = await startServer(
    serverConfig({
      server: { port: 0, web: 'dist/web' },
      log: { level: 'silent' },
      extensions: {
        hosted: [
          { name: 'shout', description: 'shout: capitals, on the server', module: 'tests/extensions/shout.mjs' },
          { name: 'hostrev', description: 'hostrev: rev(1) on the host', command: ['/usr/bin/rev'] },
        ],
      },
    }),
  );
  try {
    await page.goto(airlock.url);
    const terminal = page.locator('.xterm-rows');
    await expect(terminal).toContainText('user@sandbox', { timeout: 60_000 });
    // Typed in the terminal, like a user would.
    await page.locator('.xterm-helper-textarea').first().focus();
    await page.keyboard.type('shout hello from chromium | hostrev\n');
    await expect(terminal).toContainText('MUIMORHC MORF OLLEH', { timeout: 30_000 });

    const results = await page.evaluate(async () => {
      const controller = (window as unknown as { airlock: { controller: Controller } }).airlock.controller;
      while (controller.sandbox === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      return {
        help: await controller.run('shout --help'),
        pipe: await controller.run('printf "abc\\n" | hostrev | shout'),
        fail: await controller.run('shout fail'),
      };
    });
    expect(results.help).toMatchObject({ exitCode: 0, stdout: 'shout: capitals, on the server\n' });
    expect(results.pipe).toMatchObject({ exitCode: 0, stdout: 'CBA\n' });
    expect(results.fail).toMatchObject({ exitCode: 1, stderr: 'shout: shout refuses to shout fail\n' });

    // The Extensions panel lists them with their descriptions.
    await page.locator('#panel-extensions').click();
    const panel = page.locator('[data-panel="extensions"]');
    await expect(panel.locator('li[data-extension="shout"]')).toContainText('shout: capitals, on the server');
    await expect(panel.locator('li[data-extension="hostrev"]')).toContainText('hostrev: rev(1) on the host');
    await expect(panel.locator('li[data-extension="shout"]')).toContainText('runs on the server');
  } finally {
    await airlock.close();
  }
});

test('a page embedding the sandbox registers an extension that runs in that page', async ({ page, baseURL }) => {
  const parent: Server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>docs</title>'));
  await new Promise<void>((resolve) => parent.listen(0, '127.0.0.1', resolve));
  try {
    await page.goto(`http://127.0.0.1:${(parent.address() as AddressInfo).port}/`);
    const replies = await page.evaluate(async (base) => {
      const frame = document.createElement('iframe');
      frame.src = `${base}embed.html?origins=${encodeURIComponent(location.origin)}`;
      document.body.append(frame);
      let nextId = 1;
      const waiting = new Map<number, (value: unknown) => void>();
      let ready: () => void = () => undefined;
      const isReady = new Promise<void>((resolve) => (ready = resolve));
      const request = (message: object): Promise<{ ok: boolean; value?: unknown; error?: string }> => {
        const id = nextId++;
        return new Promise((resolve) => {
          waiting.set(id, resolve as (value: unknown) => void);
          frame.contentWindow?.postMessage({ airlock: 1, id, ...message }, new URL(base).origin);
        });
      };
      const seen: string[] = [];
      window.addEventListener('message', (event) => {
        const data = event.data as { type: string; id?: number; callId?: number; name?: string; args?: string[]; stdin?: string };
        if (data.type === 'ready') ready();
        if (data.type === 'result') waiting.get(data.id ?? 0)?.(data);
        // The handler, in this page: answers each call with an extensionResult request.
        if (data.type === 'extension-call') {
          seen.push(`${data.name} ${(data.args ?? []).join(' ')}`);
          const answer = data.args?.[0] === 'boom' ? { error: 'the page says no' } : { stdout: `page got ${JSON.stringify(data.args)} and ${JSON.stringify(data.stdin)}\n`, exitCode: 0 };
          void request({ type: 'extensionResult', callId: data.callId, ...answer });
        }
      });
      await isReady;
      const registered = await request({ type: 'registerExtensions', extensions: [{ name: 'lookup', description: 'lookup: answered by the docs page' }] });
      const run = await request({ type: 'run', command: 'echo input | lookup a b' });
      const help = await request({ type: 'run', command: 'lookup --help' });
      const boom = await request({ type: 'run', command: 'lookup boom' });
      const clash = await request({ type: 'registerExtensions', extensions: [{ name: 'cat', description: 'no' }] });
      return { registered, run, help, boom, clash, seen };
    }, baseURL ?? '');
    expect(replies.registered).toMatchObject({ ok: true });
    expect(replies.run).toMatchObject({ ok: true, value: { exitCode: 0, stdout: 'page got ["a","b"] and "input\\n"\n' } });
    expect(replies.help).toMatchObject({ ok: true, value: { exitCode: 0, stdout: 'lookup: answered by the docs page\n' } });
    expect(replies.boom).toMatchObject({ ok: true, value: { exitCode: 1, stderr: 'lookup: the page says no\n' } });
    expect(replies.clash).toMatchObject({ ok: false });
    expect(replies.seen).toEqual(['lookup a b', 'lookup boom']);
  } finally {
    await new Promise<void>((resolve) => parent.close(() => resolve()));
  }
});
