// The agents service: a phase run by the server (it holds the key), behind a bearer token,
// on a workspace under agents.workspaces only, its events in the server's audit trail.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../../tests/agent/fake-provider.js';
import { PAGE_TOKEN_HEADER } from '../../src/protocol/server.js';
import { serverConfig, startServer, type RunningServer } from '../main.js';
import { AGENT_RUNS_PATH } from './index.js';

const TOKEN = 'test-agents-token-0123456789abcdef';
const KEY = 'sk-ant-test-server-held-key';

describe('the agents service', { timeout: 300_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let fake: FakeProvider;
  const saved = process.env.ANTHROPIC_API_KEY;

  beforeAll(async () => {
    process.env.ANTHROPIC_API_KEY = KEY;
    dir = mkdtempSync(join(tmpdir(), 'airlock-agents-service-'));
    mkdirSync(join(dir, 'workspaces/repo'), { recursive: true });
    writeFileSync(join(dir, 'workspaces/repo/notes.txt'), 'draft\n');
    writeFileSync(join(dir, 'token'), TOKEN);
    fake = await startFakeProvider((request) =>
      JSON.stringify(request.body.messages).includes('tool_result') ? { text: 'Notes finished.' } : { calls: [{ name: 'write', input: { path: 'notes.txt', content: 'final\n' } }] },
    );
    server = await startServer(
      serverConfig({
        server: { port: 0, web: join(dir, 'web') },
        log: { level: 'silent' },
        agents: { tokenFile: join(dir, 'token'), workspaces: join(dir, 'workspaces'), sessionsDir: join(dir, 'sessions'), providers: { anthropic: { upstream: fake.root } } },
      }),
    );
  });

  afterAll(async () => {
    if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved;
    await server?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (body: unknown, token = TOKEN): Promise<Response> =>
    fetch(new URL(AGENT_RUNS_PATH, server.url), { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });

  it('refuses callers without the token and workspaces outside its root', async () => {
    expect((await post({ prompt: 'x', workspace: 'repo' }, 'wrong-token-wrong-token')).status).toBe(401);
    const outside = await post({ prompt: 'x', workspace: '../../etc' });
    expect(outside.status).toBe(400);
    expect(((await outside.json()) as { message: string }).message).toMatch(/under the workspace root/);
    expect((await post({ prompt: 'x', workspace: 'repo', githubProfile: 'admin' })).status).toBe(400);
  });

  it('runs a phase with the key it holds, and records it in the audit trail', async () => {
    const started = await post({ prompt: 'Finish the notes.', workspace: 'repo', model: 'anthropic/claude-sonnet-4-6' });
    expect(started.status).toBe(202);
    const { sessionId } = (await started.json()) as { sessionId: string };
    let record: { state: string; exitCode?: number; phases: Array<{ success: boolean; output: string; sessionId: string }> };
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const r = await fetch(new URL(`${AGENT_RUNS_PATH}/${sessionId}`, server.url), { headers: { authorization: `Bearer ${TOKEN}` } });
      record = (await r.json()) as typeof record;
    } while (record.state === 'running');
    expect(record).toMatchObject({ state: 'done', exitCode: 0, phases: [{ success: true, output: 'Notes finished.', sessionId }] });
    expect(readFileSync(join(dir, 'workspaces/repo/notes.txt'), 'utf8')).toBe('final\n');
    expect(fake.requests.every((r) => r.headers['x-api-key'] === KEY)).toBe(true);
    expect(readFileSync(join(dir, 'sessions', `${sessionId}.jsonl`), 'utf8')).toContain('"type":"tool_execution_end"');
    const events = await fetch(new URL(`/api/audit/events?session=${sessionId}`, server.url), { headers: { [PAGE_TOKEN_HEADER]: server.tokens.mint() } });
    const types = ((await events.json()) as { events: Array<{ event: { type: string; source: string } }> }).events.map((e) => `${e.event.source}:${e.event.type}`);
    // The two provider requests the relay carried are the host's network decisions, in order with the turns.
    expect(types).toEqual(['agent:agent.started', 'host:network.decision', 'agent:agent.turn', 'agent:agent.usage', 'agent:agent.tool_call', 'host:network.decision', 'agent:agent.turn', 'agent:agent.usage', 'agent:agent.ended']);
  });
});
