// Resource limits that hold (issue 20): the process limit against fork bombs, background
// processes that end with their run, and the next run starting afterwards as if nothing
// happened. Real bash in a real Node sandbox child.

import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, Sandbox, drainWarmPool } from './index.js';

afterAll(() => drainWarmPool());

/** The command lines of the sandbox's processes now (from /proc, one per line). */
const LIST_PROCESSES = 'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; done';

describe('the process limit', () => {
  it('has a default and ends a fork bomb in the foreground, naming the limit; the next run starts at once', async () => {
    expect(DEFAULT_LIMITS.processes).toBe(128);
    const sandbox = await Sandbox.create({});
    try {
      const bomb = await sandbox.run('f() { f | f; }; f', { timeoutMs: 120_000 });
      expect(bomb.errorClass).toBe('limit');
      expect(bomb.limit).toEqual({ name: 'processes', value: 128 });
      // The host's message names the limit. The shell's own "fork: Resource temporarily
      // unavailable" comes only if it writes it before the run is ended, which is timing.
      expect(bomb.stderr).toContain('airlock: process limit reached: 128 processes per sandbox (processes)');
      const next = await sandbox.run('echo next', { timeoutMs: 30_000 });
      expect(next).toMatchObject({ stdout: 'next\n', exitCode: 0, errorClass: null });
    } finally {
      await sandbox.destroy();
    }
  });

  it('ends the classic background fork bomb with its run', async () => {
    const sandbox = await Sandbox.create({ limits: { processes: 40 } });
    try {
      const bomb = await sandbox.run(':(){ :|:& };:', { timeoutMs: 60_000 });
      expect(bomb.errorClass === null || bomb.errorClass === 'limit').toBe(true);
      const after = await sandbox.run(LIST_PROCESSES, { timeoutMs: 30_000 });
      expect(after.errorClass).toBe(null);
      // The session shell, the loop's own processes (bash, tr), nothing left of the bomb.
      expect(after.stdout.split('\n').filter((line) => line.length > 0).length).toBeLessThanOrEqual(3);
    } finally {
      await sandbox.destroy();
    }
  });

  it('refuses a limit that is not a positive number', async () => {
    await expect(Sandbox.create({ limits: { processes: 0 } })).rejects.toThrow(/limit processes must be a positive number, got 0/);
  });
});

describe('memoryBytes in the shell and its tools', () => {
  it('reports an allocation failure in bash or awk as the limit, not a crash', async () => {
    const sandbox = await Sandbox.create({ limits: { memoryBytes: 64 * 1024 * 1024 } });
    try {
      // Growing bit by bit until an allocation fails at the limit.
      for (const command of ['awk \'BEGIN { while (1) a[i++] = sprintf("%10000s", "") }\'', 'x=$(printf %10000s); while :; do a[i++]=$x; done']) {
        const result = await sandbox.run(command, { timeoutMs: 120_000 });
        expect(result.errorClass, `${command}: ${result.stderr}`).toBe('limit');
        expect(result.limit).toEqual({ name: 'memoryBytes', value: 64 * 1024 * 1024 });
        expect(result.stderr).toContain('memoryBytes');
        expect(result.stderr).not.toMatch(/aborted|crashed/);
      }
      expect((await sandbox.run('echo after', { timeoutMs: 30_000 })).stdout).toBe('after\n');
    } finally {
      await sandbox.destroy();
    }
  });
});

describe('background processes', () => {
  it('end with the run that started them', async () => {
    const sandbox = await Sandbox.create({});
    try {
      expect((await sandbox.run('sleep 1000 & echo started', { timeoutMs: 30_000 })).stdout).toBe('started\n');
      const after = await sandbox.run(LIST_PROCESSES, { timeoutMs: 30_000 });
      expect(after.stdout).not.toContain('sleep');
    } finally {
      await sandbox.destroy();
    }
  });

  it('live on when the sandbox keeps them, still counted by the process limit', async () => {
    const sandbox = await Sandbox.create({ keepBackgroundProcesses: true, limits: { processes: 10 } });
    try {
      await sandbox.run('for i in 1 2 3; do sleep 1000 & done', { timeoutMs: 30_000 });
      const kept = await sandbox.run('cat /proc/[0-9]*/cmdline | tr "\\0" " "', { timeoutMs: 30_000 });
      expect(kept.stdout.match(/sleep 1000/g)?.length).toBe(3);
      const more = await sandbox.run('for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1000 & done; wait', { timeoutMs: 30_000 });
      expect(more.errorClass).toBe('limit');
      expect(more.limit).toEqual({ name: 'processes', value: 10 });
      expect(more.stderr).toContain('process limit reached: 10 processes per sandbox (processes)');
    } finally {
      await sandbox.destroy();
    }
  });
});
