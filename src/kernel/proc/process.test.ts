// Processes, pipes and the scheduler, driven by the probe program.

import { describe, expect, it } from 'vitest';
import { createTestKernel } from '../../../tests/helpers/test-kernel.js';

describe('processes', () => {
  const t = createTestKernel();

  it('spawns children through the airlock import and reports their status', async () => {
    const result = await t.run(['probe', 'spawn', 'probe', 'exit', '3']);
    expect(result.out).toBe('status 3\n');
    expect((await t.run(['probe', 'spawn', 'probe', 'echo', 'from the child'])).out).toBe('from the child\nstatus 0\n');
  });

  it('finds programs on PATH and fails clearly for missing ones', async () => {
    expect((await t.run(['probe', 'spawn', '/usr/bin/probe', 'exit', '0'])).out).toBe('status 0\n');
    expect((await t.run(['probe', 'spawn', 'no-such-tool'])).out).toBe('spawn err 44\n');
    const missing = await t.run(['no-such-tool']);
    expect(missing.exitCode).toBe(127);
    expect(missing.err).toBe('airlock: no-such-tool: command not found\n');
    expect(missing.errorClass).toBe('not-found');
  });

  it('gives each process its ids, arguments and the spawn blob', async () => {
    const [pid, ppid] = (await t.run(['probe', 'pid'])).out.trim().split(' ').map(Number);
    expect(pid).toBeGreaterThan(0);
    expect(ppid).toBe(0);
    expect((await t.run(['probe', 'read', '/proc/self/cmdline'])).out).toBe('probe\0read\0/proc/self/cmdline\0');
  });

  it('runs #! scripts through their interpreter', async () => {
    t.kernel.fs.writeFile('script', new TextEncoder().encode('#!/usr/bin/probe args\nignored\n'), { mode: 0o755 });
    expect((await t.run(['probe', 'spawn', './script', 'x'])).out).toBe('[/home/user/script]\n[x]\nstatus 0\n'.replace('/home/user/script', './script'));
    t.kernel.fs.writeFile('plain', new TextEncoder().encode('just text\n'), { mode: 0o755 });
    expect((await t.run(['probe', 'spawn', './plain'])).out).toBe('spawn err 45\n');
    t.kernel.fs.writeFile('noexec', new TextEncoder().encode('#!/usr/bin/probe\n'), { mode: 0o644 });
    expect((await t.run(['probe', 'spawn', './noexec'])).out).toBe('spawn err 2\n');
  });
});

describe('pipes', () => {
  const t = createTestKernel();

  it('stream between processes and deliver EOF after the last writer closes', async () => {
    expect((await t.run(['probe', 'pipeline', '5000000'])).out).toBe('5000000\nstatuses 0 0\n');
  });

  it('end `yes | head -1`: head exits 0 and yes dies of SIGPIPE (141)', async () => {
    expect((await t.run(['probe', 'yes-head'])).out).toBe('y\nhead 0 yes 141\n');
  });

  it('block a writer while the pipe is full', async () => {
    expect((await t.run(['probe', 'full-pipe', '300000'])).out).toBe('blocked true read 300000 status 0\n');
  });

  it('turn a wait that can never end into EDEADLK instead of a hang', async () => {
    const result = await t.run(['probe', 'wait-self-pipe']);
    expect(result.err).toContain('Resource deadlock');
    expect(result.out).toMatch(/^waited Some\(1\)\n$/);
  });
});

describe('limits and the allowlist', () => {
  it('refuses tools outside the allowlist with a message and status 126', async () => {
    const t = createTestKernel({ allowedTools: ['nothing-else'] });
    const result = await t.run(['probe', 'echo', 'hi']);
    expect(result.exitCode).toBe(126);
    expect(result.err).toBe("airlock: probe: not allowed by this sandbox's tool allowlist\n");
    expect(result.errorClass).toBe('denied');
  });

  it('applies the allowlist to processes started by other processes too', async () => {
    const t = createTestKernel({ allowedTools: ['probe'] });
    t.kernel.fs.writeFile('/tmp/x', new TextEncoder().encode('#!/usr/bin/probe echo\n'), { mode: 0o755 });
    expect((await t.run(['probe', 'spawn', '/tmp/x'])).exitCode).toBe(0);
  });

  it('caps stdout and says it was truncated', async () => {
    const t = createTestKernel({ limits: { stdoutBytes: 1000 } });
    const result = await t.run(['probe', 'emit', '5000']);
    expect(result.out.length).toBe(1000);
    expect(result.truncated.stdout).toBe(true);
    expect(result.exitCode).toBe(0);
  });

  it('stops a process that grows past the memory limit with a message naming it', async () => {
    const t = createTestKernel({ limits: { memoryBytes: 32 * 1024 * 1024 } });
    const result = await t.run(['probe', 'alloc', '64']);
    expect(result.exitCode).not.toBe(0);
    expect(result.err).toMatch(/memory/);
    expect(result.errorClass).toBe('limit');
    expect(result.limit).toEqual({ name: 'memoryBytes', value: 32 * 1024 * 1024 });
  });

  it('reports a filesystem limit hit during a run', async () => {
    const t = createTestKernel({ limits: { fsBytes: 10 } });
    const result = await t.run(['probe', 'write', 'big', 'more than ten bytes']);
    expect(result.out).toBe('err 51\n');
    expect(result.errorClass).toBe('limit');
    expect(result.limit).toEqual({ name: 'fsBytes', value: 10 });
  });
});

describe('a program whose stack is too deep to suspend', () => {
  // 64 bytes hold no call stack: the first wait overflows the buffer the stack is saved in.
  const t = createTestKernel({ asyncifyBytes: 64 });

  it('ends with a message naming the buffer, and the kernel runs on', async () => {
    const result = await t.run(['probe', 'sleep', '1']);
    expect(result.exitCode).toBe(139);
    expect(result.err).toBe('probe: crashed: call stack too deep to suspend: it outgrew the 64-byte buffer that holds a waiting program\'s stack\n');
    expect((await t.run(['probe', 'echo', 'still here'])).out).toBe('still here\n');
  });
});

describe('a memory reused with its imports (kernel.ts, buildImports)', () => {
  const t = createTestKernel();

  it('serves each next process its own arguments, also after one ended while suspended', async () => {
    // Ended by the deadline while waiting: its memory and imports go to a later process.
    expect((await t.run(['probe', 'sleep', '5000'], { timeoutMs: 50 })).exitCode).toBe(124);
    for (let i = 0; i < 40; i++) {
      const word = 'w'.repeat(i + 1);
      expect((await t.run(['probe', 'echo', word])).out).toBe(`${word}\n`);
      expect((await t.run(['probe', 'spawn', 'probe', 'echo', `child ${i}`])).out).toBe(`child ${i}\nstatus 0\n`);
    }
  });
});
