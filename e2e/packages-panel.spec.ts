// The Packages and Extensions panels (issue 18, item 6): what is installed in the sandbox
// and how packages are turned on; the commands the host registered. The install test runs a
// server of its own whose gateway allows a registry served from loopback (the shared e2e
// server allows no host), turns packages on in Settings, installs with `pkg` in the terminal
// and sees the package listed, running, and kept across a reload.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { serverConfig, startServer, type RunningServer } from '../server/main.js';
import { openPlayground, terminalText, typeInTerminal, waitIdle, waitSaved } from './playground-helpers.js';

test('the Packages panel says how to turn packages on and lists what is installed', async ({ page }) => {
  await openPlayground(page);
  await page.locator('#panel-packages').click();
  const panel = page.locator('[data-panel="packages"]');
  await expect(panel.getByTestId('packages-state')).toContainText('Packages are off');
  await expect(panel.getByTestId('packages-state')).toContainText('Settings → Packages');
  await expect(panel.getByTestId('packages-empty')).toBeVisible();

  const site = '/home/user/.local/lib/python3/site-packages';
  await typeInTerminal(page, `mkdir -p ${site}/hello_airlock-1.0.0.dist-info ${site}/hello_airlock && printf 'Name: hello-airlock\\nVersion: 1.0.0\\nSummary: says hello\\n' > ${site}/hello_airlock-1.0.0.dist-info/METADATA\n`);
  await waitIdle(page);
  const wheel = panel.locator('li[data-package="hello_airlock"]');
  await expect(wheel).toContainText('1.0.0');
  await expect(wheel).toContainText('pip');
  await expect(wheel).toContainText('says hello');

  // Turning packages on: a registry in Settings → Packages.
  await page.locator('#panel-settings').click();
  await page.locator('#settings-package-registry').fill('not a url');
  await page.getByRole('button', { name: /^Apply/ }).click();
  await expect(page.locator('[data-panel="settings"] [role="alert"]')).toContainText('Package registry: “not a url” is not a URL');
  await page.locator('#settings-package-registry').fill('https://packages.example.com/index.json');
  await page.getByRole('button', { name: /^Apply/ }).click();
  await expect(page.locator('#status')).toContainText('Ready');
  await page.locator('#panel-packages').click();
  await expect(panel.getByTestId('packages-state')).toContainText('Packages are on: packages from packages.example.com');
  await expect(wheel).toBeVisible();
});

test('the Extensions panel says when no extension is registered', async ({ page }) => {
  await openPlayground(page);
  await page.locator('#panel-extensions').click();
  await expect(page.locator('[data-panel="extensions"]').getByTestId('extensions-empty')).toContainText('No extensions are registered');
});

test('pkg install from a registry set in Settings: listed in Packages, runs, kept across a reload', async ({ page }) => {
  test.setTimeout(120_000);
  const echo = readFileSync('tests/wasi/bin/echo.wasm');
  const registry: Server = createServer((req, res) => {
    const base = `http://${req.headers.host ?? ''}`;
    if (req.url === '/index.json') {
      const entry = { name: 'wecho', version: '1.0.0', description: 'echo, built with wasi-libc', url: `${base}/echo.wasm`, sha256: createHash('sha256').update(echo).digest('hex'), size: echo.length, commands: ['wecho'] };
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ packages: [entry] }));
    } else if (req.url === '/echo.wasm') res.writeHead(200, { 'Content-Type': 'application/wasm' }).end(echo);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(registry.address() as AddressInfo).port}`;
  const airlock: RunningServer = await startServer(serverConfig({ server: { port: 0, web: 'dist/web' }, network: { allowedHosts: [host] }, log: { level: 'silent' } }));
  try {
    const workspace = `pkg-${Date.now()}`;
    await page.goto(`${airlock.url}?ws=${workspace}`);
    await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
    await page.locator('#panel-settings').click();
    await page.locator('#settings-package-registry').fill(`http://${host}/index.json`);
    await page.getByRole('button', { name: /^Apply/ }).click();
    await expect(page.locator('#status')).toContainText('Ready');
    await expect(terminalText(page)).toContainText('user@sandbox', { timeout: 10_000 });
    await typeInTerminal(page, 'pkg install wecho && wecho installed-and-running\n');
    await expect(terminalText(page)).toContainText('installed-and-running', { timeout: 30_000 });
    await waitIdle(page);
    await page.locator('#panel-packages').click();
    const listed = page.locator('[data-panel="packages"] li[data-package="wecho"]');
    await expect(listed).toContainText('1.0.0');
    await expect(listed).toContainText('pkg: wecho');
    await expect(listed).toContainText('echo, built with wasi-libc');

    await waitSaved(page);
    await page.goto(`${airlock.url}?ws=${workspace}`);
    await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
    await page.locator('#panel-packages').click();
    await expect(page.locator('[data-panel="packages"] li[data-package="wecho"]')).toBeVisible();
    await expect(page.locator('[data-panel="packages"]').getByTestId('packages-state')).toContainText(`Packages are on: packages from ${host}`);
  } finally {
    await airlock.close();
    await new Promise<void>((resolve) => registry.close(() => resolve()));
  }
});
