// A layout that fits the work (issue 18, item 5): resizable and collapsible panes, the
// editor closed until a file is open, a Run/Stop toggle (disabled for files it cannot run,
// "already running"), Ctrl+Enter, banners that do not move the layout (one or several), a
// theme switch, a layout that works 800 px wide, a file tree that is one Tab stop, and
// axe-core scans of the main views and every side panel in both themes with no serious
// violations.

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

type Box = { x: number; y: number; width: number; height: number };
const boxOf = async (page: Page, selector: string): Promise<Box> => {
  const box = await page.locator(selector).first().boundingBox();
  if (box === null) throw new Error(`${selector} is not shown`);
  return box;
};
const overlap = (a: Box, b: Box): boolean => a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;

test('several banners at once do not shift the layout', async ({ page }) => {
  await openPlayground(page);
  const panes = ['.toolbar', '.workbench', '#pane-tree', '.xterm-screen', '.status-bar'];
  const before = await Promise.all(panes.map((selector) => boxOf(page, selector)));
  await page.evaluate(() => {
    const controller = (window as unknown as { airlock: { controller: { addBanner(b: object): void } } }).airlock.controller;
    for (const [index, kind] of ['one', 'two', 'three', 'four'].entries()) controller.addBanner({ level: index % 2 === 0 ? 'warning' : 'info', kind: `test-${kind}`, title: `Banner ${kind}: something to say, long enough to wrap onto a second line at this width.`, detail: 'And what to do about it.' });
  });
  await expect(page.locator('.banner')).toHaveCount(4);
  const after = await Promise.all(panes.map((selector) => boxOf(page, selector)));
  expect(after).toEqual(before);
  // Every banner can still be read and dismissed.
  for (const banner of await page.locator('.banner').all()) await expect(banner).toBeInViewport();
});

test('at 800 px wide the panes do not overlap and stay usable, with a side panel open', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 700 });
  await openPlayground(page);
  // Nothing is wider than the window (no sideways scrolling of the page).
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800);
  for (const button of await page.locator('.toolbar button, .toolbar select').all()) await expect(button).toBeInViewport({ ratio: 1 });
  await page.locator('#panel-settings').click();
  await expect(page.locator('[data-panel="settings"]')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800);
  const [toolbar, tree, terminal, side] = await Promise.all(['.toolbar', '#pane-tree', '.terminal', '#pane-side'].map((selector) => boxOf(page, selector)));
  for (const [a, b] of [[toolbar, tree], [toolbar, terminal], [tree, terminal], [terminal, side], [tree, side]] as const) expect(overlap(a, b)).toBe(false);
  // Each pane keeps a working size: the terminal fits a line of a command, the panel its fields.
  expect(terminal.width).toBeGreaterThanOrEqual(240);
  expect(side.width).toBeGreaterThanOrEqual(220);
  expect(side.x + side.width).toBeLessThanOrEqual(800.5);
  await typeInTerminal(page, 'echo narrow-$((6*7))\n');
  await expect(terminalText(page)).toContainText('narrow-42');
});

test('the file tree is a single Tab stop', async ({ page }) => {
  await openPlayground(page);
  await sandboxRun(page, 'mkdir -p tabs && touch tabs/a tabs/b one two three');
  await expect(page.locator('[role="treeitem"]')).not.toHaveCount(0);
  const rows = await page.locator('[role="treeitem"]').count();
  expect(rows).toBeGreaterThan(3);
  expect(await page.locator('[role="treeitem"][tabindex="0"]').count()).toBe(1);
  // From the last tree toolbar button, Tab reaches one row, and the next Tab leaves the tree.
  await page.locator('.tree-toolbar button', { hasText: 'Upload' }).focus();
  await page.keyboard.press('Tab');
  await expect(page.locator('[role="treeitem"]:focus')).toHaveCount(1);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('[role="treeitem"]:focus')).toHaveCount(1);
  expect(await page.locator('[role="treeitem"][tabindex="0"]').count()).toBe(1);
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.closest('[role="tree"]') === null)).toBe(true);
  await page.keyboard.press('Shift+Tab');
  await expect(page.locator('[role="treeitem"]:focus')).toHaveCount(1);
  await page.keyboard.press('Shift+Tab');
  expect(await page.evaluate(() => document.activeElement?.closest('[role="tree"]') === null)).toBe(true);
});

test('axe finds no serious violations in the network, packages, extensions, audit and gates panels', async ({ page }) => {
  test.setTimeout(120_000);
  await openPlayground(page);
  // Something in each: a refused request (network, audit).
  await typeInTerminal(page, 'curl -s http://blocked.example.test/; echo done\n');
  await waitIdle(page);
  for (const theme of ['Light', 'Dark']) {
    await page.getByLabel('Theme').selectOption({ label: theme });
    for (const id of ['network', 'packages', 'extensions', 'audit', 'gates']) {
      await page.locator(`#panel-${id}`).click();
      await expect(page.locator(`[data-panel="${id}"]`)).toBeVisible();
      // A gate run's timeline too, where the server has one (e2e/gates-panel.spec.ts makes one).
      const gateRun = page.locator('[data-gate-run-id] button').first();
      if (id === 'gates' && (await gateRun.count()) > 0) {
        await gateRun.click();
        await expect(page.locator('.gate-run')).toBeVisible();
      }
      expect(await seriousViolations(page), `${id}, ${theme}`).toEqual([]);
    }
  }
});
