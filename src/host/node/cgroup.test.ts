// The whole sandbox's memory ceiling and CPU bound (issue 20): a cgroup per Node sandbox
// child, made by the host. Past limits.sandboxMemoryBytes the kernel's OOM killer ends the
// child and the run reports the limit; limits.sandboxCpus is the CPU quota written to the
// cgroup (read back here, never timed). Needs root or a delegated cgroup v2 subtree: where
// this machine cannot make one, those tests are skipped with the reason, and the rest check
// what the sandbox then says about itself.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, SANDBOX_MEMORY_FLOOR } from '../../protocol/limits.js';
import { cgroupSupport, createChildCgroup, CPU_PERIOD_US } from './cgroup.js';
import { childCommand } from './child-process.js';
import { Sandbox, drainWarmPool, type OsIsolation } from './index.js';

afterAll(() => drainWarmPool());

const MiB = 1024 * 1024;
const support = cgroupSupport();
const noCgroups = 'reason' in support ? ` (skipped: ${support.reason})` : '';

function cgroupOf(isolation: OsIsolation | null): { version: 'v1' | 'v2'; paths: string[] } {
  const cgroup = isolation?.cgroup;
  if (cgroup === null || cgroup === undefined) throw new Error(`the sandbox has no cgroup: ${isolation?.missing.join('; ') ?? 'no isolation'}`);
  return cgroup;
}

/** A cgroup file's content, trimmed. */
function readCgroup(dir: string | undefined, file: string): string {
  if (dir === undefined) throw new Error(`no cgroup directory for ${file}`);
  return readFileSync(join(dir, file), 'utf8').trim();
}

/** The processes in a cgroup, sorted. */
function pids(dir: string | undefined): number[] {
  return readCgroup(dir, 'cgroup.procs').split('\n').filter((line) => line !== '').map(Number).sort((a, b) => a - b);
}

describe.skipIf('reason' in support)(`the sandbox's memory ceiling${noCgroups}`, () => {
  it('ends a sandbox whose processes together go past it, names the limit, restores it, and leaves other sandboxes alone', async () => {
    const ceiling = 512 * MiB;
    const other = await Sandbox.create({});
    const sandbox = await Sandbox.create({ limits: { sandboxMemoryBytes: ceiling } });
    try {
      const otherCgroup = cgroupOf(other.isolation);
      expect(sandbox.isolation).toMatchObject({ memoryCeiling: true, cgroup: { version: 'version' in support ? support.version : null } });
      await other.writeFile('/home/user/other.txt', 'still here');
      await sandbox.writeFile('/home/user/kept.txt', 'from before');
      // Python's interpreter (~300 MiB) plus 400 MiB of bytes, each under memoryBytes (1 GiB).
      const python = await sandbox.run(`python3 -c "x = b'x' * (400 << 20); print(len(x))"`, { timeoutMs: 180_000 });
      expect(python.errorClass, python.stderr).toBe('limit');
      expect(python.limit).toEqual({ name: 'sandboxMemoryBytes', value: ceiling });
      expect(python.exitCode).toBe(137);
      expect(python.stderr).toContain(`memory ceiling and were killed (sandboxMemoryBytes is ${ceiling}); the sandbox was restored to its state before this command`);
      // A fresh child from the checkpoint, in a cgroup of its own.
      const next = await sandbox.run('cat kept.txt', { timeoutMs: 60_000 });
      expect(next).toMatchObject({ stdout: 'from before', exitCode: 0, errorClass: null });
      expect(cgroupOf(sandbox.isolation).paths[0]).not.toBe(undefined);
      // The other sandbox kept its child (same cgroup) and its files.
      expect(cgroupOf(other.isolation).paths).toEqual(otherCgroup.paths);
      expect(await other.run('cat other.txt', { timeoutMs: 60_000 })).toMatchObject({ stdout: 'still here', errorClass: null });
    } finally {
      await sandbox.destroy();
      await other.destroy();
    }
  });

  it('counts background processes together: many small ones past it end the run as one', async () => {
    const ceiling = 256 * MiB;
    const sandbox = await Sandbox.create({ limits: { sandboxMemoryBytes: ceiling }, keepBackgroundProcesses: true });
    try {
      // Eight subshells holding 40 MB each: every one is far under memoryBytes.
      const many = await sandbox.run("for i in 1 2 3 4 5 6 7 8; do ( x=$(head -c 40000000 /dev/zero | tr '\\0' x); sleep 60 ) & done; wait", { timeoutMs: 120_000 });
      expect(many.errorClass, many.stderr).toBe('limit');
      expect(many.limit).toEqual({ name: 'sandboxMemoryBytes', value: ceiling });
      expect((await sandbox.run('echo next', { timeoutMs: 60_000 })).stdout).toBe('next\n');
    } finally {
      await sandbox.destroy();
    }
  });

  it('writes the ceiling and holds the child in it', async () => {
    const sandbox = await Sandbox.create({ limits: { sandboxMemoryBytes: 300 * MiB } });
    try {
      const { version, paths } = cgroupOf(sandbox.isolation);
      expect(readCgroup(paths[0], version === 'v2' ? 'memory.max' : 'memory.limit_in_bytes')).toBe(String(300 * MiB));
      // The child's processes (the wrapper became bubblewrap, then Node) are all inside.
      expect(pids(paths[0]).length).toBeGreaterThanOrEqual(1);
    } finally {
      await sandbox.destroy();
    }
  });

  it('is removed with the child, once its last process is gone', async () => {
    const made = createChildCgroup({ memoryBytes: SANDBOX_MEMORY_FLOOR, cpus: 1 });
    if (made.cgroup === undefined) throw new Error(made.reason);
    const { program, args } = made.cgroup.wrap('/bin/sleep', ['1000']);
    const child = spawn(program, args, { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    expect(await made.cgroup.remove()).toBe(true);
    for (const dir of made.cgroup.paths) expect(existsSync(dir)).toBe(false);
    expect(made.cgroup.oomKilled()).toBe(false);
  });

  it('goes with its sandbox and with a fork of it (removed off the host thread, none left behind)', async () => {
    const sandbox = await Sandbox.create({});
    const copy = await sandbox.fork();
    const dirs = [...cgroupOf(sandbox.isolation).paths, ...cgroupOf(copy.isolation).paths];
    for (const dir of dirs) expect(existsSync(dir)).toBe(true);
    await copy.destroy();
    await sandbox.destroy();
    // Removal is asynchronous: wait for it (a liveness check, not a speed bound).
    for (let i = 0; i < 200 && dirs.some((dir) => existsSync(dir)); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
  });
});

describe.skipIf('reason' in support)(`the sandbox's CPU bound${noCgroups}`, () => {
  it('holds a sandbox that keeps its background processes to limits.sandboxCpus, read back from the cgroup', async () => {
    expect(DEFAULT_LIMITS.sandboxCpus).toBe(1);
    const sandbox = await Sandbox.create({ keepBackgroundProcesses: true, limits: { sandboxCpus: 0.5 } });
    try {
      expect(sandbox.isolation).toMatchObject({ cpuBound: true, memoryCeiling: true });
      const { version, paths } = cgroupOf(sandbox.isolation);
      if (version === 'v2') expect(readCgroup(paths[0], 'cpu.max')).toBe(`50000 ${CPU_PERIOD_US}`);
      else {
        expect(readCgroup(paths[1], 'cpu.cfs_period_us')).toBe(String(CPU_PERIOD_US));
        expect(readCgroup(paths[1], 'cpu.cfs_quota_us')).toBe('50000');
        // The same processes as the memory cgroup's.
        expect(pids(paths[1])).toEqual(pids(paths[0]));
      }
      // A kept background process runs in the child, so in the bounded cgroup.
      await sandbox.run('sleep 1000 &', { timeoutMs: 30_000 });
      expect((await sandbox.run('cat /proc/[0-9]*/cmdline | tr "\\0" " "', { timeoutMs: 30_000 })).stdout).toContain('sleep 1000');
      expect(pids(paths[0]).length).toBeGreaterThan(0);
    } finally {
      await sandbox.destroy();
    }
  });
});

describe('without a cgroup', () => {
  it('says the memory ceiling and CPU bound are missing, and why', () => {
    const spec = { bundle: '/nonexistent/kernel.mjs', wasmDir: '/nonexistent/wasm', messageBytes: 1024, isolateNetwork: true };
    const { program, isolation } = childCommand(spec, { reason: 'not root' });
    expect(program).not.toBe('/bin/sh');
    expect(isolation).toMatchObject({ memoryCeiling: false, cpuBound: false, cgroup: null });
    expect(isolation.missing).toContain('memory ceiling and CPU bound: not root');
  });

  it('refuses a ceiling the sandbox process itself would not fit in, naming the limit', async () => {
    await expect(Sandbox.create({ limits: { sandboxMemoryBytes: 16 * MiB } })).rejects.toThrow(/limit sandboxMemoryBytes must be a number of bytes from 134217728/);
    await expect(Sandbox.create({ limits: { sandboxCpus: 0.001 } })).rejects.toThrow(/limit sandboxCpus must be a number of cores from 0.01, got 0.001/);
  });
});
