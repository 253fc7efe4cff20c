// A layout that fits the work (issue 18, item 5): resizable and collapsible panes, the
// editor closed until a file is open, a Run/Stop toggle (disabled for files it cannot run,
// "already running"), Ctrl+Enter, banners that do not move the layout, a theme switch, and
// an axe-core scan of the main views in both themes with no serious violations.

import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { newFile, openPlayground, sandboxRun, terminalText, typeInTerminal, waitIdle } from './playground-helpers.js';

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} ${n.failureSummary ?? ''}`).join(' | ')}`);
}

test('axe finds no serious violations in the main views, light and dark', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await expect(page.locator('#status')).toContainText('Ready', { timeout: 30_000 });
  await expect(page.getByRole('tab', { name: /^hello\.py/ })).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('.monaco-editor').first()).toBeVisible({ timeout: 30_000 });
  await typeInTerminal(page, 'ls --color=auto; echo done\n');
  await waitIdle(page);
  for (const theme of ['Light', 'Dark']) {
    await page.getByLabel('Theme').selectOption({ label: theme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme.toLowerCase());
    expect(await seriousViolations(page), `welcome view, ${theme}`).toEqual([]);
    await page.locator('#panel-settings').click();
    await expect(page.locator('[data-panel="settings"]')).toBeVisible();
    expect(await seriousViolations(page), `settings, ${theme}`).toEqual([]);
    await page.locator('#panel-sessions').click();
    expect(await seriousViolations(page), `sessions, ${theme}`).toEqual([]);
    await page.getByRole('button', { name: 'Reset workspace…' }).click();
    await expect(page.getByTestId('dialog')).toBeVisible();
    expect(await seriousViolations(page), `dialog, ${theme}`).toEqual([]);
    await page.getByTestId('dialog').getByRole('button', { name: 'Cancel' }).click();
  }
});

test('the theme switch changes the page and the terminal, and is kept', async ({ page }) => {
  const workspace = await openPlayground(page);
  await page.getByLabel('Theme').selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const terminalDark = await page.locator('.xterm-viewport').evaluate((e) => getComputedStyle(e).backgroundColor);
  await page.getByLabel('Theme').selectOption('light');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(dark).not.toBe(light);
  expect(terminalDark).toBe('rgb(30, 30, 30)');
  await page.getByLabel('Theme').selectOption('dark');
  await openPlayground(page, workspace);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByLabel('Theme')).toHaveValue('dark');
});

test('panes resize by keyboard and by drag, collapse, and keep their size', async ({ page }) => {
  const workspace = await openPlayground(page);
  const tree = page.locator('#pane-tree');
  const before = (await tree.boundingBox())?.width ?? 0;
  const splitter = page.getByRole('separator', { name: 'Resize the file tree' });
  await splitter.focus();
  for (let i = 0; i < 3; i += 1) await page.keyboard.press('ArrowRight');
  await expect.poll(async () => (await tree.boundingBox())?.width ?? 0).toBe(before + 48);
  const box = await splitter.boundingBox();
  if (box === null) throw new Error('no splitter');
  await page.mouse.move(box.x + 2, box.y + 100);
  await page.mouse.down();
  await page.mouse.move(box.x + 62, box.y + 100, { steps: 5 });
  await page.mouse.up();
  await expect.poll(async () => Math.round((await tree.boundingBox())?.width ?? 0)).toBe(before + 48 + 60);
  await splitter.focus();
  await page.keyboard.press('Enter');
  await expect(tree).toBeHidden();
  await page.keyboard.press('Enter');
  await expect(tree).toBeVisible();
  await openPlayground(page, workspace);
  await expect.poll(async () => Math.round((await page.locator('#pane-tree').boundingBox())?.width ?? 0)).toBe(before + 108);
});

test('the editor stays closed until a file is open; Run is a Run/Stop toggle; Ctrl+Enter runs', async ({ page }) => {
  await openPlayground(page);
  await expect(page.locator('.editor-closed')).toContainText('No file open');
  await expect(page.locator('.monaco-editor')).toHaveCount(0);
  await sandboxRun(page, 'echo plain > notes.txt');
  await page.locator('[data-path="/home/user/notes.txt"]').click();
  await expect(page.locator('.monaco-editor').first()).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('#run-file')).toBeDisabled();
  await expect(page.locator('#run-file')).toHaveAttribute('title', /Run works for \.sh \(bash\) and \.py \(python3\) files; this is a \.txt file/);

  await newFile(page, 'slow.sh');
  const editor = page.locator('.monaco-editor').first();
  await editor.click();
  await page.keyboard.type('echo started-$((1+1)); sleep 5; echo finished');
  const workbenchTop = (await page.locator('.workbench').boundingBox())?.y;
  await page.keyboard.press('Control+Enter');
  await expect(terminalText(page)).toContainText('started-2', { timeout: 20_000 });
  await expect(page.locator('#run-file')).toHaveText('■ Stop');
  await page.keyboard.press('Control+Enter');
  await expect(page.locator('.banner[data-kind="run"]')).toContainText('Already running');
  // The banner floats over the workbench: nothing moved.
  expect((await page.locator('.workbench').boundingBox())?.y).toBe(workbenchTop);
  await page.locator('#run-file').click();
  await expect(page.locator('#run-file')).toHaveText(/Run \.sh/, { timeout: 20_000 });
  await waitIdle(page);
  await expect(terminalText(page)).not.toContainText('finished');
});
