import { defineConfig } from '@playwright/test';
import type { AirlockOptions } from 'airlock/playwright';

// The Airlock server (for the embedded sandbox) and the app under test, both on 127.0.0.1.
const airlockPort = Number(process.env.AIRLOCK_PORT ?? 4208);
const appPort = Number(process.env.APP_PORT ?? 4209);

// The type parameter lets `use` carry airlock/playwright's options (airlockUrl, sandboxOptions).
export default defineConfig<AirlockOptions>({
  testDir: 'tests',
  timeout: 60_000,
  use: {
    baseURL: `http://127.0.0.1:${appPort}/`,
    // airlock/playwright's option: where embed.html is served.
    airlockUrl: `http://127.0.0.1:${airlockPort}/`,
    // Debian's Chromium here; drop this to use the browser `npx playwright install` fetched.
    launchOptions: { executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] },
  },
  webServer: [
    { command: `node node_modules/airlock/dist/server/main.mjs --port ${airlockPort} --web node_modules/airlock/dist/web`, url: `http://127.0.0.1:${airlockPort}/`, reuseExistingServer: false, timeout: 30_000 },
    { command: 'node app.mjs', url: `http://127.0.0.1:${appPort}/`, env: { APP_PORT: String(appPort) }, reuseExistingServer: false },
  ],
});
