// The Packages and Extensions panels (issue 18, item 6): what is installed in the sandbox
// and how packages are turned on; the commands the host registered. (A package registry
// served from loopback is not reachable here: the e2e server's gateway allows no host, so
// pkg's installs are tested in tests/packages; this spec installs a wheel's files by hand,
// as pip lays them out.)

import { expect, test } from '@playwright/test';
import { openPlayground, typeInTerminal, waitIdle } from './playground-helpers.js';

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
