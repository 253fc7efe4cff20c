// Another website open in the same browser cannot use the server's gateway (issue 12, item
// 1): the playground, served by the server, reaches an allowed loopback service through the
// gateway with its page token; a page of another origin (http://localhost:…, another site
// than http://127.0.0.1:…) tries a simple no-cors POST, a preflighted POST with a guessed
// token, reading a page's token cross-origin, and a form post — the service sees none of it.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { encodeHop } from '../src/protocol/gateway.js';
import { serverConfig, startServer, type RunningServer } from '../server/main.js';

interface Controller {
  sandbox?: object;
  applySettings(settings: { networkAllow: string[]; tools: null; limits: Record<string, number>; packageRegistry: null; pythonIndex: null }): Promise<void>;
  run(command: string): Promise<{ stdout: string; exitCode: number }>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

test('another website cannot use the gateway; the server\'s own page can', async ({ browser }) => {
  let served = 0;
  const service = createServer((_req, res) => {
    served += 1;
    res.end('hello from the service');
  });
  const servicePort = await listen(service);
  const airlock: RunningServer = await startServer(serverConfig({ server: { port: 0, web: 'dist/web' }, network: { allowedHosts: [`127.0.0.1:${servicePort}`] }, log: { level: 'silent' } }));
  const hop = [...encodeHop({ method: 'GET', url: `http://127.0.0.1:${servicePort}/`, headers: [] }, undefined)];
  const attacker = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>elsewhere</title><iframe name="sink"></iframe>'));
  const attackerPort = await listen(attacker);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(airlock.url);
    // The page's code (and window.airlock with it) loads after the entry has started the sandbox.
    await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
    const out = await page.evaluate(async (port) => {
      const controller = (window as unknown as { airlock: { controller: Controller } }).airlock.controller;
      while (controller.sandbox === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      await controller.applySettings({ networkAllow: [`127.0.0.1:${port}`], tools: null, limits: {}, packageRegistry: null, pythonIndex: null });
      while (controller.sandbox === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      return (await controller.run(`curl -s http://127.0.0.1:${port}/`)).stdout;
    }, servicePort);
    expect(out).toBe('hello from the service');
    expect(served).toBe(1);

    const evil = await context.newPage();
    await evil.goto(`http://localhost:${attackerPort}/`);
    const attempts = await evil.evaluate(
      async ({ gateway, page, body }) => {
        const bytes = new Uint8Array(body);
        const results: Record<string, string> = {};
        const attempt = async (name: string, run: () => Promise<unknown>): Promise<void> => {
          try {
            results[name] = `resolved ${String(await run())}`;
          } catch (error) {
            results[name] = `rejected ${(error as Error).name}`;
          }
        };
        await attempt('no-cors POST', async () => (await fetch(gateway, { method: 'POST', mode: 'no-cors', body: bytes })).type);
        await attempt('no-cors text/plain POST', async () => (await fetch(gateway, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: bytes })).type);
        await attempt('CORS POST with a guessed token', async () => (await fetch(gateway, { method: 'POST', headers: { 'x-airlock-page-token': 'guess.guess', 'Content-Type': 'application/octet-stream' }, body: bytes })).status);
        await attempt('read a page token', async () => (await (await fetch(page)).text()).length);
        const form = document.createElement('form');
        form.method = 'POST';
        form.action = gateway;
        form.target = 'sink';
        form.enctype = 'text/plain';
        const field = document.createElement('input');
        field.name = 'x';
        field.value = new TextDecoder().decode(bytes);
        form.append(field);
        document.body.append(form);
        form.submit();
        await new Promise((resolve) => setTimeout(resolve, 1000));
        return results;
      },
      { gateway: new URL('api/net/hop', airlock.url).href, page: airlock.url, body: hop },
    );
    expect(attempts).toEqual({
      'no-cors POST': 'resolved opaque',
      'no-cors text/plain POST': 'resolved opaque',
      'CORS POST with a guessed token': 'rejected TypeError',
      'read a page token': 'rejected TypeError',
    });
    expect(served).toBe(1);
  } finally {
    await context.close();
    await airlock.close();
    service.close();
    attacker.close();
  }
});
