// Packages in the playground from the server's own sample registry (public/packages/,
// docs/packages.md), kept across a reload: Settings → Packages → "Use this server's
// registry", `pkg install lua`, reload, and lua still runs; then sqlite3 and lz4 run too.
// The spec runs a server of its own whose gateway allows that server's host (the shared
// e2e server's gateway allows none); everything listens on 127.0.0.1.

import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { serverConfig, startServer, type RunningServer } from '../server/main.js';
import { terminalText, typeInTerminal, waitIdle, waitSaved } from './playground-helpers.js';

/** A port free on 127.0.0.1 now: the gateway's allowlist names it before the server listens. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

test("pkg install from the server's registry, set in Settings; the program still runs after a reload", async ({ page }) => {
  test.setTimeout(180_000);
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const airlock: RunningServer = await startServer(serverConfig({ server: { host: '127.0.0.1', port, web: 'dist/web' }, network: { allowedHosts: [host] }, log: { level: 'silent' } }));
  try {
    const workspace = `pkg-registry-${Date.now()}`;
    await page.goto(`${airlock.url}?ws=${workspace}`);
    await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
    await page.locator('#panel-settings').click();
    await page.getByRole('button', { name: /Use this server.s registry/ }).click();
    await expect(page.locator('#settings-package-registry')).toHaveValue(`http://${host}/packages/index.json`);
    await page.getByRole('button', { name: /^Apply/ }).click();
    await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
    await expect(terminalText(page)).toContainText('user@sandbox', { timeout: 10_000 });

    await typeInTerminal(page, `pkg install lua && lua -e 'print("lua says " .. 6 * 7)'\n`);
    await expect(terminalText(page)).toContainText('installed lua 5.2.4 (lua)', { timeout: 60_000 });
    await expect(terminalText(page)).toContainText('lua says 42', { timeout: 30_000 });
    await waitIdle(page);

    await waitSaved(page);
    await page.reload();
    await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
    await expect(terminalText(page)).toContainText('user@sandbox', { timeout: 10_000 });
    // After the reload: the package is still installed (no new download) and runs.
    await typeInTerminal(page, `pkg list && lua -e 'print("still " .. 6 * 7)'\n`);
    await expect(terminalText(page)).toContainText('lua 5.2.4 (lua)', { timeout: 30_000 });
    await expect(terminalText(page)).toContainText('still 42', { timeout: 30_000 });
    await waitIdle(page);
    // A script file by a relative path: the program reads the workspace's files.
    await typeInTerminal(page, `cd /tmp && echo 'print("from a file: " .. 2 ^ 10)' > f.lua && lua f.lua\n`);
    await expect(terminalText(page)).toContainText('from a file: 1024', { timeout: 30_000 });
    await waitIdle(page);
    // The other two run in the browser too: SQLite on a database file, LZ4 through pipes.
    await typeInTerminal(page, `pkg install sqlite3 lz4 >/dev/null && sqlite3 t.db 'create table t(x); insert into t values (40), (2); select "sum " || sum(x) from t' && echo hello-lz4 | lz4 | lz4 -d | tr a-z A-Z\n`);
    await expect(terminalText(page)).toContainText('sum 42', { timeout: 60_000 });
    await expect(terminalText(page)).toContainText('HELLO-LZ4', { timeout: 30_000 });
  } finally {
    await airlock.close();
  }
});
