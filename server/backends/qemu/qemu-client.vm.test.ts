// The contract suite against real microVMs (TCG here). Runs in the `vm` stage of npm test
// (vitest.vm.config.ts), one file at a time; skipped with the reason when the image or QEMU
// is missing. The client starts warm (from a snapshot of a booted guest, made by its first
// run) wherever it can, which is both the warm path's contract and most of the stage's
// time saved; gates.vm.test.ts boots cold, so both paths run here.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeContract } from '../contract-suite.js';
import { parseSandboxSpec } from '../spec.js';
import { QemuSandboxClient } from './qemu-client.js';

const client = new QemuSandboxClient({ warm: true });
describeContract('qemu', () => client, {
  skipReason: async () => {
    const health = await client.health();
    return health.reachable ? null : health.reasons.join('; ');
  },
  workPath: '/home/user/work',
  shortBudgetSeconds: 3,
});

describe('qemu warm start', () => {
  it('a run after the first starts from the snapshot and behaves like a cold one', async (context) => {
    const health = await client.health();
    if (!health.reachable) context.skip(health.reasons.join('; '));
    const runsDir = mkdtempSync(join(tmpdir(), 'airlock-qemu-warm-'));
    try {
      const run = await client.execute(parseSandboxSpec({ phases: [{ name: 'hello', argv: ['bash', '-c', 'echo hello from $(id -un)'] }] }), { runsDir });
      expect([run.warmStart, run.exitCode, readFileSync(run.phases[0]?.stdoutPath ?? '', 'utf8')]).toEqual([true, 0, 'hello from user\n']);
    } finally {
      rmSync(runsDir, { recursive: true, force: true });
    }
  });
});
