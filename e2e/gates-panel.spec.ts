// The playground's Gates panel on a real gate run: the server runs the `tests` gate on the
// wasm backend over a workspace under its configured root (playwright.config.ts sets
// AIRLOCK_GATES_WORKSPACES and AIRLOCK_GATES_DIR), the workspace's test fails the same way
// three times, and the panel shows the run as a timeline: each attempt's verdict, the
// failure it was given, its signal with the detail, its evidence, and the escalation.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { PAGE_TOKEN_HEADER, PAGE_TOKEN_META } from '../src/protocol/server.js';
import { GATES_E2E_WORKSPACES } from './gates-dirs.js';
import { openPlayground } from './playground-helpers.js';

test('the gates panel shows a run as a timeline of attempts, signals, evidence and its escalation', async ({ page }) => {
  test.setTimeout(180_000);
  const name = `failing-${Date.now()}`;
  mkdirSync(join(GATES_E2E_WORKSPACES, name, '.airlock'), { recursive: true });
  writeFileSync(join(GATES_E2E_WORKSPACES, name, '.airlock/gate.yaml'), 'test: "echo \\"not ok 1 - value is wrong\\"; exit 1"\n');
  await openPlayground(page);
  // Started as the page would start it: with the page's own token.
  const gateRunId = await page.evaluate(
    async ({ workspace, meta, header }) => {
      const token = document.querySelector(`meta[name="${meta}"]`)?.getAttribute('content') ?? '';
      const response = await fetch('/api/gates/runs', { method: 'POST', headers: { 'content-type': 'application/json', [header]: token }, body: JSON.stringify({ gate: 'tests', workspace, backend: 'wasm' }) });
      return ((await response.json()) as { gateRunId: string }).gateRunId;
    },
    { workspace: name, meta: PAGE_TOKEN_META, header: PAGE_TOKEN_HEADER },
  );
  expect(gateRunId).toMatch(/^[0-9a-f-]{36}$/);
  await expect
    .poll(
      () =>
        page.evaluate(
          async ({ id, meta, header }) => {
            const token = document.querySelector(`meta[name="${meta}"]`)?.getAttribute('content') ?? '';
            const body = (await (await fetch(`/api/gates/runs/${id}`, { headers: { [header]: token } })).json()) as { done: boolean; manifest: { outcome?: string } };
            return body.done ? (body.manifest.outcome ?? 'none') : 'running';
          },
          { id: gateRunId, meta: PAGE_TOKEN_META, header: PAGE_TOKEN_HEADER },
        ),
      { timeout: 150_000, intervals: [1000] },
    )
    .toBe('escalated');

  await page.locator('#panel-gates').click();
  await page.locator(`[data-gate-run-id="${gateRunId}"] button`).click();
  const run = page.locator(`section.gate-run[data-gate-run="${gateRunId}"]`);
  await expect(run.locator('h3')).toHaveText('tests: escalated');
  const attempts = run.locator('li.gate-attempt');
  await expect(attempts).toHaveCount(3);
  await expect(run.locator('li.gate-attempt.gate-failed')).toHaveCount(3);
  const failure = 'tests: 1 of 1 failed (tap); first: value is wrong';
  const second = run.locator('li.gate-attempt[data-attempt="2"]');
  await expect(second.locator('.gate-prior')).toHaveText(`given: ${failure}`);
  await expect(run.locator('li.gate-attempt[data-attempt="1"] .gate-prior')).toHaveCount(0);
  const signal = second.locator('li[data-signal="tests"]');
  await expect(signal).toHaveAttribute('data-passed', 'false');
  await expect(signal).toContainText('1 of 1 failed (tap); first: value is wrong');
  await expect(second.locator('.gate-evidence')).toContainText(/sandbox run [0-9a-f-]{36} · \d+\.\d s/);
  await expect(run).toContainText(`Escalated to a human after 3 attempts: 3 attempts failed identically: ${failure}`);
});
