// The audit trail in Chromium: the panel lists the session's events (filter by type,
// refusals highlighted); the page ships them to the server that served it; with the server
// unreachable they wait in IndexedDB and are shipped once it is reachable again.

import { expect, test, type Page } from '@playwright/test';
import { openPlayground, sandboxRun } from './playground-helpers.js';

interface Logged {
  n: number;
  event: { type: string; sessionId: string; seq: number; allowed?: boolean };
}

/** The server's events of `sessionId`, read through the query API as this page. */
function serverEvents(page: Page, sessionId: string): Promise<Logged[]> {
  return page.evaluate(async (session) => {
    const token = document.querySelector('meta[name="airlock-page-token"]')?.getAttribute('content') ?? '';
    const response = await fetch(`/api/audit/events?session=${encodeURIComponent(session)}&limit=1000`, { headers: { 'x-airlock-page-token': token } });
    return ((await response.json()) as { events: Logged[] }).events;
  }, sessionId);
}

function sessionOf(page: Page): Promise<string> {
  return page.evaluate(() => (window as unknown as { airlock: { controller: { sandbox: { sessionId: string } } } }).airlock.controller.sandbox.sessionId);
}

/** Events waiting in this page's IndexedDB outbox. */
function waiting(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const request = indexedDB.open('airlock-audit');
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const count = request.result.transaction('outbox').objectStore('outbox').count();
          count.onsuccess = () => {
            resolve(count.result);
            request.result.close();
          };
        };
      }),
  );
}

test('the panel lists the session, filters by type, highlights refusals; the server has the same events', async ({ page }) => {
  await openPlayground(page);
  const session = await sessionOf(page);
  await sandboxRun(page, 'echo hello > note.txt');
  const refused = await sandboxRun(page, 'curl -s http://example.com/');
  expect(refused.exitCode).not.toBe(0);
  await page.getByRole('button', { name: 'Audit' }).click();
  const panel = page.locator('[data-panel="audit"]');
  // (The terminal's own start-up runs are listed too.)
  await expect(panel.locator('.audit-event[data-type="run.started"]', { hasText: 'command="echo hello > note.txt"' })).toHaveCount(1);
  await expect(panel.locator('.audit-event[data-type="run.ended"]', { hasText: 'exitCode=0' }).first()).toBeVisible();
  const refusal = panel.locator('.audit-event[data-type="network.decision"]');
  await expect(refusal).toHaveAttribute('data-refusal', 'true');
  await expect(refusal).toContainText('allowed=false');
  await expect(refusal).toContainText('host=example.com');
  await panel.getByLabel('Filter by type').selectOption('run.started');
  await expect(panel.locator('.audit-event').first()).toContainText('command="curl -s http://example.com/"');
  expect(await panel.locator('.audit-event').evaluateAll((rows) => rows.every((row) => row.getAttribute('data-type') === 'run.started'))).toBe(true);
  await panel.getByLabel('Filter by type').selectOption('');
  await panel.getByLabel('refusals only').check();
  await expect(panel.locator('.audit-event')).toHaveCount(1);

  await expect.poll(async () => (await serverEvents(page, session)).map((e) => e.event.type), { timeout: 15_000 }).toEqual(
    expect.arrayContaining(['sandbox.created', 'run.started', 'persistence.committed', 'run.ended', 'network.decision']),
  );
  const seqs = (await serverEvents(page, session)).map((e) => e.event.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  await expect.poll(() => waiting(page)).toBe(0);
});

test('with the server unreachable, events wait in IndexedDB and are shipped when it is back', async ({ page }) => {
  await openPlayground(page);
  const session = await sessionOf(page);
  await expect.poll(() => waiting(page)).toBe(0);
  await page.route('**/api/audit', (route) => route.abort('connectionrefused'));
  await sandboxRun(page, 'echo offline');
  await page.getByRole('button', { name: 'Audit' }).click();
  await expect(page.getByTestId('audit-ship-state')).toContainText('kept in this browser', { timeout: 15_000 });
  expect(await waiting(page)).toBeGreaterThanOrEqual(2);
  const before = (await serverEvents(page, session)).length;
  await page.unroute('**/api/audit');
  await page.getByRole('button', { name: 'Send now' }).click();
  await expect(page.getByTestId('audit-ship-state')).toContainText('Sent to the server', { timeout: 15_000 });
  expect(await waiting(page)).toBe(0);
  const after = await serverEvents(page, session);
  expect(after.length).toBeGreaterThanOrEqual(before + 2);
  expect(after.filter((e) => e.event.type === 'run.started').length).toBeGreaterThanOrEqual(1);
});
