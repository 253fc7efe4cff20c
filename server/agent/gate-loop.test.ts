// The gate loop: the agent's workspace through the gate runner (wasm backend), a failure
// handed back to the agent as the prior failure; recovering on attempt 2, escalating (11)
// after 3. And `airlock agent run` as a process, against the same scripted provider.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../../tests/agent/fake-provider.js';
import { verifyAuditLog } from '../../src/host/audit/audit-log.js';
import { executeAgentWithGate } from './gate-loop.js';

const TIMEOUT = 600_000;
const root = fileURLToPath(new URL('../..', import.meta.url));

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-agent-gate-'));
  mkdirSync(join(dir, '.airlock'));
  writeFileSync(join(dir, '.airlock/gate.yaml'), 'test: "sh test.sh"\n');
  writeFileSync(join(dir, 'test.sh'), '[ "$(cat answer.txt)" = 42 ] && echo PASS || { echo "FAIL: answer.txt is not 42"; exit 1; }\n');
  writeFileSync(join(dir, 'answer.txt'), '41\n');
  return dir;
}

describe('the gate loop', { timeout: TIMEOUT }, () => {
  const dirs: string[] = [];
  const providers: FakeProvider[] = [];
  process.env.ANTHROPIC_API_KEY ??= 'sk-ant-test-gate-loop';

  afterAll(async () => {
    await Promise.all(providers.map((p) => p.close()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('hands the failure back and recovers on attempt 2', async () => {
    const cwd = workspace();
    const gatesDir = mkdtempSync(join(tmpdir(), 'airlock-agent-gates-'));
    dirs.push(cwd, gatesDir);
    const fake = await startFakeProvider((request) => {
      const prompt = JSON.stringify(request.body.messages);
      if (!prompt.includes('failed the gate')) return { text: 'Nothing to do.' };
      if (prompt.includes('tool_result')) return { text: 'Set the answer to 42.' };
      return { calls: [{ name: 'write', input: { path: 'answer.txt', content: '42\n' } }] };
    });
    providers.push(fake);
    const result = await executeAgentWithGate('Make the gate pass.', { cwd, model: 'anthropic/claude-sonnet-4-6', providers: { anthropic: { upstream: fake.root } } }, { gate: 'tests', gatesDir });
    expect(result.exitCode).toBe(0);
    expect(result.gate?.outcome).toBe('passed');
    expect(result.gate?.attempts).toHaveLength(2);
    expect(result.phases).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1]?.body.messages)).toContain('failed the gate:\\ntests: exit 1');
    expect(readFileSync(join(cwd, 'answer.txt'), 'utf8')).toBe('42\n');
  });

  it('escalates after three attempts: airlock agent run --gate exits 11, its audit log holds every phase', async () => {
    const cwd = workspace();
    const gatesDir = mkdtempSync(join(tmpdir(), 'airlock-agent-gates-'));
    dirs.push(cwd, gatesDir);
    const fake = await startFakeProvider(() => ({ text: 'I cannot fix it.' }));
    providers.push(fake);
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', join(root, 'tests/mcp/cli-entry.ts'), 'agent', 'run', '--model', 'anthropic/claude-sonnet-4-6', '--profile', 'read', '--gate', 'tests', '--cwd', cwd, '--provider-url', `anthropic=${fake.root}`, '--audit', join(gatesDir, 'audit.jsonl'), 'Make the gate pass.'],
        { cwd: root, env: { ...process.env, AIRLOCK_GATES_DIR: gatesDir, AIRLOCK_AUDIT_KEY: join(gatesDir, 'audit.key') }, timeout: TIMEOUT },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number((error as { code?: number }).code), stdout, stderr }),
      );
    });
    expect(run.stderr).toMatch(/gate tests escalated after 3 attempt\(s\): 3 attempts failed identically/);
    expect(run.code).toBe(11);
    expect(run.stdout).toBe('I cannot fix it.\n');
    expect(fake.requests).toHaveLength(3);
    const report = await verifyAuditLog(join(gatesDir, 'audit.jsonl'), { schema: true });
    expect(report.problem ?? null).toBeNull();
    const types = readFileSync(join(gatesDir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { event: { type: string } }).event.type);
    expect(types.filter((t) => t === 'agent.started')).toHaveLength(3);
    expect(types.filter((t) => t === 'agent.ended')).toHaveLength(3);
    expect(types.filter((t) => t.startsWith('sandbox.'))).not.toHaveLength(0);
  });
});
