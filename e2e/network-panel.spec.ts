// The playground's network panel: the session's policy, and each request the sandbox made,
// allowed or refused with the reason (here refused by the default-deny policy, before any
// connection or lookup).

import { expect, test } from '@playwright/test';
import { openPlayground, sandboxRun, terminalText, typeInTerminal } from './playground-helpers.js';

test('the network panel lists the policy and a refused request with its reason', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'curl -s http://blocked.example.test/; echo "exit $?"\n');
  await expect(terminalText(page)).toContainText('exit 7', { timeout: 30_000 });
  await page.locator('#panel-network').click();
  const panel = page.locator('[data-panel="network"]');
  await expect(panel.getByTestId('network-policy')).toContainText('no network');
  const row = panel.locator('li[data-allowed="false"]').first();
  await expect(row).toContainText('http://blocked.example.test/');
  await expect(row).toContainText('network access is off');
});

// Nobody in the playground wrote a policy option: a refusal names where to turn the network
// on, never the option (network.allowedHosts) it is kept in — in the panel and in curl's error.
test('a refusal is worded without config words, in the panel and in the terminal', async ({ page }) => {
  await openPlayground(page);
  await typeInTerminal(page, 'curl http://blocked.example.test/ 2>&1 | tee /tmp/curl-error; echo "exit $?"\n');
  await expect(terminalText(page)).toContainText('exit 0', { timeout: 30_000 });
  const curlError = (await sandboxRun(page, 'cat /tmp/curl-error')).stdout;
  expect(curlError).toContain('network access is off');
  expect(curlError).not.toMatch(/network\.\w+|allowedHosts/);
  await page.locator('#panel-network').click();
  const reason = page.locator('[data-panel="network"] li[data-allowed="false"] .network-reason').first();
  await expect(reason).toHaveText('network access is off for this sandbox; allow hosts in Settings → Network');
  await expect(page.locator('[data-panel="network"]')).not.toContainText(/network\.\w+|allowedHosts/);
});

// With some hosts allowed, a host that is not among them: curl's error names the setting.
test('a host outside the allowed ones is refused in the words of the settings', async ({ page }) => {
  await openPlayground(page);
  await page.evaluate(async () => {
    const controller = (window as unknown as { airlock: { controller: { sandbox?: object; applySettings(s: { networkAllow: string[]; tools: null; limits: Record<string, number>; packageRegistry: null; pythonIndex: null }): Promise<void> } } }).airlock.controller;
    await controller.applySettings({ networkAllow: ['allowed.example.test'], tools: null, limits: {}, packageRegistry: null, pythonIndex: null });
    while (controller.sandbox === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  });
  const result = await sandboxRun(page, 'curl -s -S http://other.example.test/ 2>&1');
  expect(result.stdout).toContain('other.example.test is not in the allowed hosts (Settings → Network)');
  expect(result.stdout).not.toMatch(/network\.\w+|allowedHosts/);
});
