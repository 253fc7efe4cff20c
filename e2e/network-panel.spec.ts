// The playground's network panel: the session's policy, and each request the sandbox made,
// allowed or refused with the reason (here refused by the default-deny policy, before any
// connection or lookup).

import { expect, test } from '@playwright/test';
import { openPlayground, terminalText, typeInTerminal } from './playground-helpers.js';

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
