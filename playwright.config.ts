import { mkdirSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import { GATES_E2E_RUNS, GATES_E2E_WORKSPACES } from './e2e/gates-dirs.js';

const port = Number(process.env.AIRLOCK_E2E_PORT ?? 4174);
mkdirSync(GATES_E2E_WORKSPACES, { recursive: true });

// Debian's Chromium; Playwright's own browser downloads are not available here.
export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/e2e',
  timeout: 60_000,
  // The machine that runs the suite is often loaded: give assertions room (they still pass
  // as soon as the condition holds).
  expect: { timeout: 15_000 },
  // As vitest's: on CI a failed spec is run once more (reported as flaky if it then passes).
  retries: process.env.CI ? 1 : 0,
  workers: 1,
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e/results.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${port}/`,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
    },
    screenshot: 'only-on-failure',
    trace: 'off',
  },
  webServer: {
    command: `node dist/server/main.mjs --port ${port}`,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 30_000,
    // The gates service gates only workspaces under a configured root (e2e/gates-panel.spec.ts).
    env: { AIRLOCK_GATES_WORKSPACES: GATES_E2E_WORKSPACES, AIRLOCK_GATES_DIR: GATES_E2E_RUNS },
  },
});
