// The contract every backend passes: one suite, run against each backend's client by its
// own test file (wasm always; qemu where the guest image is built; firecracker where KVM
// and a firecracker binary are — else every case is skipped with the health reason).
// Commands use only bash and coreutils, which every backend's image has.

import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxClient, SandboxRun, SandboxSpecInput, TraceEntry } from './contract.js';
import { parseSandboxSpec } from './spec.js';

export interface ContractOptions {
  /** A reason to skip every case (the backend cannot run here); null to run. */
  skipReason: () => Promise<string | null>;
  /** Where copy-in trees go in this backend's guest (writable there). */
  workPath: string;
  /** Time budget for the timeout case. */
  shortBudgetSeconds: number;
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function describeContract(name: string, makeClient: () => SandboxClient, options: ContractOptions): void {
  describe(`SandboxClient contract: ${name}`, () => {
    let client: SandboxClient;
    let scratch: string;
    let skip: string | null = null;
    const execute = (input: SandboxSpecInput): Promise<SandboxRun> => client.execute(parseSandboxSpec(input), { runsDir: join(scratch, 'runs') });

    beforeAll(async () => {
      skip = await options.skipReason();
      client = makeClient();
      scratch = mkdtempSync(join(tmpdir(), `airlock-contract-${name}-`));
    });
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    it('health names the backend', async (context) => {
      const health = await client.health();
      expect(health.backend).toBe(client.backend);
      if (skip !== null) {
        expect(health.reachable).toBe(false);
        expect(health.reasons.length).toBeGreaterThan(0);
        context.skip(skip);
      }
      expect(health.reachable).toBe(true);
    });

    it('runs phases in order, keeps logs, and echoes the frozen spec', async (context) => {
      if (skip !== null) context.skip(skip);
      const started: string[] = [];
      const spec = parseSandboxSpec({ label: 'contract-ok', phases: [{ name: 'one', argv: ['bash', '-c', 'echo out-one; echo err-one >&2'] }, { name: 'two', argv: ['true'] }] });
      const run = await client.execute(spec, { runsDir: join(scratch, 'runs'), onStarted: ({ runId }) => started.push(runId) });
      expect(run.runId).toMatch(UUID_V7);
      expect(started).toEqual([run.runId]);
      expect(run.backend).toBe(client.backend);
      expect(run.exitCode).toBe(0);
      expect(run.timedOut).toBe(false);
      expect(run.killedByOom).toBe(false);
      expect(run.phases.map((phase) => [phase.name, phase.exitCode])).toEqual([['one', 0], ['two', 0]]);
      expect(readFileSync(run.phases[0]?.stdoutPath ?? '', 'utf8')).toBe('out-one\n');
      expect(readFileSync(run.phases[0]?.stderrPath ?? '', 'utf8')).toBe('err-one\n');
      expect(run.spec.label).toBe('contract-ok');
      expect(Object.isFrozen(run.spec)).toBe(true);
      expect(Date.parse(run.endedAt)).toBeGreaterThanOrEqual(Date.parse(run.startedAt));
      expect(run.vmSeconds).toBeGreaterThan(0);
      expect(run.tracePath).toBeNull();
    });

    it('stops at the first failing phase with its exit code', async (context) => {
      if (skip !== null) context.skip(skip);
      const run = await execute({ phases: [{ name: 'fail', argv: ['bash', '-c', 'exit 3'] }, { name: 'never', argv: ['true'] }] });
      expect(run.exitCode).toBe(3);
      expect(run.phases.map((phase) => phase.name)).toEqual(['fail']);
    });

    it('copies in read-only and read-write, copies out, and refuses a symlink in the output', async (context) => {
      if (skip !== null) context.skip(skip);
      const project = join(scratch, 'project');
      mkdirSync(join(project, 'src'), { recursive: true });
      writeFileSync(join(project, 'src/input.txt'), 'hello from the host\n');
      const work = options.workPath;
      const run = await execute({
        copyIn: [{ hostPath: project, guestPath: work, mode: 'rw' }],
        phases: [{ name: 'build', argv: ['bash', '-c', `mkdir -p ${work}/dist && tr a-z A-Z < ${work}/src/input.txt > ${work}/dist/out.txt && ln -s /etc/passwd ${work}/dist/passwd`] }],
        copyOut: [`${work}/dist`],
      });
      expect(run.exitCode).toBe(0);
      const rel = work.replace(/^\//, '');
      expect(readFileSync(join(run.copyOutRoot, rel, 'dist/out.txt'), 'utf8')).toBe('HELLO FROM THE HOST\n');
      expect(existsSync(join(run.copyOutRoot, rel, 'dist/passwd'))).toBe(false);
      expect(run.copyOutRefusals.join('\n')).toMatch(/dist\/passwd.*symlink/);
      expect(run.bytesIn).toBe('hello from the host\n'.length);
      // The host's tree is never written.
      expect(existsSync(join(project, 'dist'))).toBe(false);
    });

    it('ends a run at its time budget as timed out', async (context) => {
      if (skip !== null) context.skip(skip);
      const run = await execute({ timeBudgetSeconds: options.shortBudgetSeconds, phases: [{ name: 'spin', argv: ['bash', '-c', 'while :; do :; done'] }] });
      expect(run.timedOut).toBe(true);
      expect(run.exitCode).toBe(124);
    });

    it('traces every program started when asked', async (context) => {
      if (skip !== null) context.skip(skip);
      const run = await execute({ enableTrace: true, phases: [{ name: 'p', argv: ['bash', '-c', 'ls / > /dev/null; true'] }] });
      expect(run.tracePath).not.toBeNull();
      const entries = readFileSync(run.tracePath ?? '', 'utf8').trim().split('\n').map((line) => JSON.parse(line) as TraceEntry);
      const programs = entries.filter((entry) => entry.kind === 'exec').map((entry) => (entry.kind === 'exec' ? entry.argv[0] : ''));
      expect(programs).toContain('ls');
    });

    it('gives network none no way out', async (context) => {
      if (skip !== null) context.skip(skip);
      const run = await execute({ phases: [{ name: 'net', argv: ['curl', '-sS', '--max-time', '5', 'http://example.com/'] }] });
      expect(run.exitCode).not.toBe(0);
    });

    it('leaves a symlinked copy-out root and hostile names outside the host', async (context) => {
      if (skip !== null) context.skip(skip);
      const project = join(scratch, 'evil');
      mkdirSync(project, { recursive: true });
      symlinkSync('/etc', join(project, 'etc-link'));
      const run = await execute({
        copyIn: [{ hostPath: project, guestPath: options.workPath, mode: 'rw' }],
        phases: [{ name: 'p', argv: ['true'] }],
        copyOut: [`${options.workPath}/etc-link`],
      });
      expect(run.exitCode).toBe(0);
      expect(run.copyOutRefusals.join('\n')).toMatch(/etc-link.*symlink/);
    });
  });
}
