// The `vm` workspace against a scripted SandboxClient: the spec each bash call becomes, the
// output handed back, the guest's changes applied to the workspace through the backend's own
// CopyOutWriter, and a hostile copy-out (a symlink out, `..`, a cap) refused. The real VM is
// in vm-tools.vm.test.ts.

import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecuteOptions, SandboxClient, SandboxHealth, SandboxRun, SandboxSpec } from '../backends/contract.js';
import { CopyOutWriter } from '../backends/copy-out.js';
import { createRunDir, phaseLogPaths } from '../backends/run-dir.js';
import { executeAgent, phasePolicy } from './execute.js';
import { decide } from '../../src/host/network/policy.js';
import { bashSpec, GUEST_ROOT, openVmWorkspace, vmAllowlist, vmProxyPolicy } from './vm-tools.js';

interface Guest {
  /** The guest's copy of the workspace: change it as the command would. */
  dir: string;
  writer: CopyOutWriter;
}
type Behaviour = (guest: Guest, spec: SandboxSpec) => { exitCode?: number; stdout?: string; stderr?: string };

/** A backend that "runs" a spec by calling `behave` on a copy of the copy-in, then copies out through the real writer. */
function scripted(behave: Behaviour, health: Partial<SandboxHealth> = {}): SandboxClient & { specs: SandboxSpec[] } {
  const specs: SandboxSpec[] = [];
  return {
    backend: 'qemu',
    specs,
    async health() {
      return { backend: 'qemu', reachable: true, version: 'scripted', reasons: [], details: {}, ...health };
    },
    async execute(spec: SandboxSpec, options: ExecuteOptions = {}): Promise<SandboxRun> {
      specs.push(spec);
      const runDir = createRunDir(options.runsDir ?? '');
      const guestDir = join(runDir.dir, 'guest');
      cpSync(spec.copyIn[0]?.hostPath ?? '', guestDir, { recursive: true, verbatimSymlinks: true });
      const writer = new CopyOutWriter(runDir.copyOutRoot);
      const out = behave({ dir: guestDir, writer }, spec);
      const walk = (dir: string): void => {
        for (const name of readdirSync(dir).sort()) {
          const path = join(dir, name);
          const rel = `${GUEST_ROOT.slice(1)}/${relative(guestDir, path)}`;
          const info = lstatSync(path);
          if (info.isSymbolicLink()) writer.admit(rel, 'symlink', 0, 'elsewhere');
          else if (info.isDirectory()) {
            writer.dir(rel);
            walk(path);
          } else writer.file(rel, readFileSync(path));
        }
      };
      writer.dir(GUEST_ROOT.slice(1));
      walk(guestDir);
      const logs = phaseLogPaths(runDir.logsDir, 0, 'bash');
      writeFileSync(logs.stdoutPath, out.stdout ?? '');
      writeFileSync(logs.stderrPath, out.stderr ?? '');
      const time = new Date().toISOString();
      const exitCode = out.exitCode ?? 0;
      return {
        runId: runDir.runId, spec, backend: 'qemu', startedAt: time, endedAt: time, exitCode, durationMs: 1, vmSeconds: 1,
        phases: [{ name: 'bash', exitCode, durationMs: 1, ...logs }], logsDir: runDir.logsDir, tracePath: null, copyOutRoot: runDir.copyOutRoot,
        timedOut: false, killedByOom: false, bytesIn: 0, bytesOut: writer.bytesWritten, warmStart: false, copyOutRefusals: writer.refusals,
      };
    },
  };
}

const signal = new AbortController().signal;
const STRICT = phasePolicy({}, {});

describe('vm workspace', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function workspaceDir(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'airlock-vm-tools-'));
    dirs.push(root);
    const cwd = join(root, 'cwd');
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(cwd, name)), { recursive: true });
      writeFileSync(join(cwd, name), text);
    }
    return cwd;
  }

  it('the spec of a bash call: sh -c in the workspace copied in rw and back out; scoped to the policy\'s hosts, never the providers', () => {
    const spec = bashSpec('/tmp/copy', 'echo hi', 2500, vmAllowlist(STRICT));
    expect(spec.copyIn).toEqual([{ hostPath: '/tmp/copy', guestPath: GUEST_ROOT, mode: 'rw' }]);
    expect(spec.phases).toEqual([{ name: 'bash', argv: ['sh', '-c', 'echo hi'], cwd: GUEST_ROOT, network: 'scoped' }]);
    expect([spec.copyOut, spec.timeBudgetSeconds, spec.network]).toEqual([[GUEST_ROOT], 3, 'scoped']);
    expect(spec.egressAllowlist).toEqual(expect.arrayContaining(['github.com', '*.github.com', 'pypi.org', '*.npmjs.org']));
    expect(spec.egressAllowlist.some((host) => /anthropic|openai|openrouter/.test(host))).toBe(false);
    expect(bashSpec('/tmp/copy', 'true', 1, []).network).toBe('none');
    expect(() => vmAllowlist(phasePolicy({ unrestrictedEgress: true }, {}))).toThrow(/unrestrictedEgress is not supported/);
  });

  it('the scoped run\'s proxy decides with the phase\'s policy: GitHub reads and the registries, no provider, no push under read, the token on the host', async () => {
    // A stub resolver: public addresses, nothing is looked up or sent.
    const resolve = async (): Promise<string[]> => ['93.184.216.34'];
    const policy = phasePolicy({}, { GITHUB_TOKEN: 'ghs_test_token' });
    const proxied = vmProxyPolicy(policy, vmAllowlist(policy));
    const verdict = async (url: string, method = 'GET'): Promise<string> => {
      const d = await decide(proxied, method, new URL(url), resolve);
      return d.allowed ? 'allowed' : d.reason;
    };
    expect(await verdict('https://api.github.com/repos/o/r')).toBe('allowed');
    expect(await verdict('https://registry.npmjs.org/left-pad')).toBe('allowed');
    expect(await verdict('https://api.anthropic.com/v1/messages', 'POST')).toMatch(/blocked by network.blockedHosts/);
    expect(await verdict('https://example.org/')).toMatch(/not in network.allowedHosts/);
    expect(await verdict('https://github.com/o/r.git/git-receive-pack', 'POST')).toMatch(/needs the repo-write GitHub profile/);
    expect(proxied.secrets?.map((secret) => secret.name)).toEqual(['GITHUB_TOKEN']);
  });

  it('runs each bash call in the backend: output back, the guest\'s changes (new, edited, deleted files) applied, modes kept', async () => {
    const cwd = workspaceDir({ 'keep.txt': 'old\n', 'gone.txt': 'x\n', 'run.sh': 'echo run\n' });
    chmodSync(join(cwd, 'run.sh'), 0o755);
    const client = scripted(({ dir }, spec) => {
      writeFileSync(join(dir, 'out.txt'), 'hi\n');
      writeFileSync(join(dir, 'keep.txt'), 'new\n');
      rmSync(join(dir, 'gone.txt'));
      return { exitCode: 3, stdout: `ran ${spec.phases[0]?.argv[2]}\n`, stderr: 'warned\n' };
    });
    const ws = await openVmWorkspace(cwd, { policy: phasePolicy({}, {}), client, agentsMd: '# Context\n' });
    expect(ws.root).toBe(GUEST_ROOT);
    const r = await ws.run('echo hi > out.txt', 10_000, signal);
    expect(r).toEqual({ exitCode: 3, stdout: 'ran echo hi > out.txt\n', stderr: 'warned\n', truncated: false });
    expect(client.specs[0]?.timeBudgetSeconds).toBe(10);
    expect([await ws.readText('out.txt'), await ws.readText(`${GUEST_ROOT}/keep.txt`), await ws.readText('AGENTS.md')]).toEqual(['hi\n', 'new\n', '# Context\n']);
    await expect(ws.readText('gone.txt')).rejects.toThrow(/ENOENT/);
    await ws.writeText('sub/dir/made.txt', 'made\n');
    await ws.close(true);
    expect(readdirSync(cwd).sort()).toEqual(['keep.txt', 'out.txt', 'run.sh', 'sub']);
    expect(readFileSync(join(cwd, 'sub/dir/made.txt'), 'utf8')).toBe('made\n');
    expect(statSync(join(cwd, 'run.sh')).mode & 0o777).toBe(0o755);
    // Nothing of the workspace's own is left beside cwd.
    expect(readdirSync(dirname(cwd))).toEqual([basename(cwd)]);
  });

  it('a hostile copy-out is refused: no symlink out, no `..`; a cut-short copy leaves the workspace as it was', async () => {
    const cwd = workspaceDir({ 'a.txt': 'a\n' });
    let round = 0;
    const client = scripted(({ dir, writer }) => {
      round += 1;
      symlinkSync('/etc/passwd', join(dir, 'passwd'));
      writer.file(`${GUEST_ROOT.slice(1)}/../../../escape.txt`, Buffer.from('x'));
      if (round === 2) {
        writeFileSync(join(dir, 'a.txt'), 'changed\n');
        writer.refusals.push('"home/user/work/big": 99 bytes would pass the copy-out cap of 1 bytes (GATE_LIMITS.copyOutBytes)');
      }
      return {};
    });
    const ws = await openVmWorkspace(cwd, { policy: STRICT, client });
    const first = await ws.run('ln -s /etc/passwd passwd', 5000, signal);
    expect(first.stderr).toContain('[vm: not copied back: "home/user/work/passwd": symlink to "elsewhere" refused]');
    expect(first.stderr).toContain("'..' in path");
    const second = await ws.run('echo changed > a.txt', 5000, signal);
    expect(second.stderr).toContain('the workspace is as it was before this command');
    expect(await ws.readText('a.txt')).toBe('a\n');
    await ws.close(true);
    expect(readdirSync(cwd)).toEqual(['a.txt']);
    expect(existsSync(join(dirname(cwd), 'escape.txt'))).toBe(false);
  });

  it('read and write stay in the workspace: no `..` out, no absolute path elsewhere, no symlink followed', async () => {
    const cwd = workspaceDir({ 'a.txt': 'a\n' });
    symlinkSync('/etc', join(cwd, 'etc'));
    const ws = await openVmWorkspace(cwd, { policy: STRICT, client: scripted(() => ({})) });
    await expect(ws.readText('../../x')).rejects.toThrow(`../../x: outside the workspace (${GUEST_ROOT})`);
    await expect(ws.readText('/etc/passwd')).rejects.toThrow(/outside the workspace/);
    await expect(ws.readText('etc/passwd')).rejects.toThrow(/a symlink is on the way/);
    await expect(ws.writeText('etc/evil', 'x')).rejects.toThrow(/a symlink is on the way/);
    await ws.close(false);
    expect(readdirSync(cwd).sort()).toEqual(['a.txt', 'etc']);
  });

  it('an unreachable backend ends executeAgent at once with health\'s reason, before any model call', async () => {
    const cwd = workspaceDir({ 'a.txt': 'a\n' });
    const client = scripted(() => ({}), { reachable: false, reasons: ['qemu-system-x86_64 not found (Debian package qemu-system-x86)'] });
    const result = await executeAgent('do it', { cwd, sandbox: 'vm', providers: { anthropic: { upstream: 'http://127.0.0.1:9' } } }, { vmClient: client });
    expect(result).toMatchObject({ success: false, turns: 0, stopReason: 'error', error: "sandbox 'vm': the qemu backend is not reachable: qemu-system-x86_64 not found (Debian package qemu-system-x86)" });
    expect(client.specs).toEqual([]);
    expect(readdirSync(dirname(cwd))).toEqual([basename(cwd)]);
  });
});
