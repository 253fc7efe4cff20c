// The gates service on a real server (loopback, port 0), with the wasm backend: start a run,
// follow its events, read its result; only pages may, and only for workspaces under the root.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_EVENTS_PATH } from '../../../src/protocol/audit/api.js';
import { PAGE_TOKEN_HEADER } from '../../../src/protocol/server.js';
import { serverConfig, startServer, type RunningServer } from '../../main.js';
import { GATES_RUNS_PATH } from './gates-service.js';

let dir: string;
let server: RunningServer;
let headers: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-gates-service-'));
  mkdirSync(join(dir, 'web'));
  writeFileSync(join(dir, 'web/index.html'), '<!doctype html><title>t</title>');
  mkdirSync(join(dir, 'workspaces/app/.airlock'), { recursive: true });
  writeFileSync(join(dir, 'workspaces/app/.airlock/gate.yaml'), 'test: "echo ok 1 - fine"\n');
  server = await startServer(serverConfig({ server: { port: 0, web: join(dir, 'web') }, log: { level: 'silent' }, gates: { workspaces: join(dir, 'workspaces'), dir: join(dir, 'gates') } }));
  headers = { [PAGE_TOKEN_HEADER]: server.tokens.mint(), 'content-type': 'application/json' };
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('gates service', () => {
  it('starts a run, streams its progress, serves its result', async () => {
    const started = await fetch(new URL(GATES_RUNS_PATH, server.url), { method: 'POST', headers, body: JSON.stringify({ gate: 'tests', workspace: 'app', backend: 'wasm' }) });
    expect(started.status).toBe(202);
    const { gateRunId } = (await started.json()) as { gateRunId: string };
    const events = await (await fetch(new URL(`${GATES_RUNS_PATH}/${gateRunId}/events`, server.url), { headers })).text();
    const types = events.split('\n\n').filter((block) => block.startsWith('data: ')).map((block) => (JSON.parse(block.slice(6)) as { type: string }).type);
    expect(types).toContain('attempt-started');
    expect(types).toContain('finished');
    const result = (await (await fetch(new URL(`${GATES_RUNS_PATH}/${gateRunId}`, server.url), { headers })).json()) as { manifest: { outcome: string }; attempts: Array<{ passed: boolean; signals: string[] }> };
    expect(result.manifest.outcome).toBe('passed');
    expect(result.attempts.map((a) => a.passed)).toEqual([true]);
    expect(result.attempts[0]?.signals).toEqual(['tests:passed']);
    // The run's audit events are in the server's audit log, under the gate run's id.
    const audit = (await (await fetch(new URL(`${AUDIT_EVENTS_PATH}?session=${gateRunId}`, server.url), { headers })).json()) as { events: Array<{ event: { type: string; source: string } }> };
    expect(audit.events.map((stored) => stored.event.type)).toEqual([
      'gate.attempt_started', 'sandbox.spec_built', 'sandbox.run_started', 'sandbox.run_completed', 'gate.attempt_completed',
    ]);
    expect(new Set(audit.events.map((stored) => stored.event.source))).toEqual(new Set(['gate']));
    const list = (await (await fetch(new URL(GATES_RUNS_PATH, server.url), { headers })).json()) as { runs: Array<{ gateRunId: string }> };
    expect(list.runs.map((run) => run.gateRunId)).toContain(gateRunId);
  });

  it('refuses requests without the page token and workspaces outside the root', async () => {
    const body = JSON.stringify({ gate: 'tests', workspace: 'app', backend: 'wasm' });
    expect((await fetch(new URL(GATES_RUNS_PATH, server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(403);
    const outside = await fetch(new URL(GATES_RUNS_PATH, server.url), { method: 'POST', headers, body: JSON.stringify({ gate: 'tests', workspace: '../../..', backend: 'wasm' }) });
    expect(outside.status).toBe(400);
    expect(((await outside.json()) as { message: string }).message).toMatch(/under the workspace root/);
    const unknown = await fetch(new URL(GATES_RUNS_PATH, server.url), { method: 'POST', headers, body: JSON.stringify({ gate: 'vibes', workspace: 'app' }) });
    expect(unknown.status).toBe(400);
  });
});
