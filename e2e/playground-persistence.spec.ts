// Persistence edge cases in Chromium: two tabs on one workspace (the second is told, can
// take over, and nothing is overwritten silently), and a full storage quota (a banner; the
// stored workspace stays the last complete save).

import { expect, test } from '@playwright/test';
import { openPlayground, sandboxRun, waitSaved } from './playground-helpers.js';

test('a second tab on the same workspace is told, and can take it over', async ({ context }) => {
  const first = await context.newPage();
  const workspace = await openPlayground(first);
  await sandboxRun(first, 'echo from-first > first.txt');
  await waitSaved(first);

  const second = await context.newPage();
  await openPlayground(second, workspace);
  await expect(second.locator('.banner[data-kind="other-tab"]')).toContainText('open in another tab');
  await expect(second.getByTestId('save-state')).toContainText('not saving');
  expect((await sandboxRun(second, 'cat first.txt')).stdout).toBe('from-first\n');
  // Changed while not owning the workspace: dropped when taking over (the saved one reloads).
  await sandboxRun(second, 'echo unsaved > not-owner.txt');

  await second.locator('.banner[data-kind="other-tab"]').getByRole('button', { name: 'Take over' }).click();
  await expect(first.locator('.banner[data-kind="other-tab"]')).toContainText('took this workspace over');
  await expect(first.getByTestId('save-state')).toContainText('not saving');
  await expect(second.locator('#status')).toContainText('Ready');
  await sandboxRun(second, 'echo from-second > second.txt');
  await waitSaved(second);
  // The tab that lost the workspace keeps working but does not overwrite what was saved.
  await sandboxRun(first, 'echo stale > second.txt; echo stale > only-first.txt');
  await first.close();

  await openPlayground(second, workspace);
  expect((await sandboxRun(second, 'cat first.txt second.txt; ls')).stdout).toBe('from-first\nfrom-second\nfirst.txt\nsecond.txt\n');
});

test('a full storage quota shows a banner and leaves the stored workspace intact', async ({ page }) => {
  const workspace = await openPlayground(page);
  await sandboxRun(page, 'echo safe > kept.txt');
  await waitSaved(page);
  await page.evaluate(() => {
    IDBObjectStore.prototype.put = function put(): IDBRequest {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
  });
  await sandboxRun(page, 'echo big > lost.txt');
  await expect(page.locator('.banner[data-kind="quota"]')).toContainText('storage for the site is full', { timeout: 10_000 });
  await expect(page.getByTestId('save-state')).toContainText('not saved');
  await openPlayground(page, workspace);
  expect((await sandboxRun(page, 'ls; cat kept.txt')).stdout).toBe('kept.txt\nsafe\n');
});
