// executeAgent with sandbox 'vm' against a real microVM (TCG here: a few seconds a run). One
// agent phase, the fake provider making one bash call: the command runs in the guest as its
// unprivileged user, its output goes back to the model, the file it made lands in cwd, and
// the provider key is not in the guest's environment. Skipped with the reason when the qemu
// backend is not reachable (no QEMU, no guest image).
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeProvider } from '../../tests/agent/fake-provider.js';
import { QemuSandboxClient } from '../backends/qemu/qemu-client.js';
import { executeAgent } from './execute.js';

const KEY = 'sk-ant-test-vm-NEVER-IN-THE-GUEST';

describe("executeAgent sandbox 'vm'", () => {
  it('runs the bash tool in a microVM and brings the workspace back', async (context) => {
    const health = await new QemuSandboxClient().health();
    if (!health.reachable) context.skip(health.reasons.join('; '));
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = KEY;
    const cwd = mkdtempSync(join(tmpdir(), 'airlock-agent-vm-'));
    writeFileSync(join(cwd, 'README'), 'workspace\n');
    const fake = await startFakeProvider([
      { calls: [{ name: 'bash', input: { command: 'echo hi > out.txt && cat out.txt README && id -un && env | grep -c NEVER-IN || true' } }], usage: { input: 10, output: 5 } },
      { text: 'Done.', usage: { input: 20, output: 2 } },
    ]);
    try {
      const result = await executeAgent('Write hi to out.txt.', { cwd, sandbox: 'vm', model: 'anthropic/claude-sonnet-4-6', providers: { anthropic: { upstream: fake.root } } });
      expect(result).toMatchObject({ success: true, turns: 2, error: null, output: 'Done.' });
      expect(JSON.stringify(fake.requests[1]?.body.messages)).toContain('exit code: 0\\nstdout:\\nhi\\nworkspace\\nuser\\n0\\n');
      expect(readdirSync(cwd).sort()).toEqual(['README', 'out.txt']);
      expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('hi\n');
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
      await fake.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
