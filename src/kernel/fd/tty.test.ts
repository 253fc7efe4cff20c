// The session's terminal as programs see it: mode flags, size, /dev/tty, the mode going back
// to cooked when the program that changed it ends; and /proc/<pid>/stat for ps and top.

import { describe, expect, it } from 'vitest';
import { createTestKernel } from '../../../tests/helpers/test-kernel.js';
import { KernelError } from '../errno.js';
import type { ExternalProgram } from '../sys/external-program.js';
import { AT_FDCWD, type Syscalls } from '../sys/syscalls.js';
import { TTY_COOKED, TTY_ECHO, TTY_ICANON, TTY_ISIG } from './tty.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function program(body: (sys: Syscalls, argv: string[]) => Promise<number>): ExternalProgram {
  return { name: 'js', run: (process, sys) => body(sys, process.argv) };
}

async function say(sys: Syscalls, text: string): Promise<void> {
  await sys.complete(sys.writeAll(1, encoder.encode(text)));
}

function errnoOf(action: () => unknown): number | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return error instanceof KernelError ? error.errno : -1;
  }
}

describe('the terminal', () => {
  it('has a mode and a size a program reads and sets on a terminal, and ENOTTY elsewhere', async () => {
    const modes: number[] = [];
    const t = createTestKernel({
      events: { terminalMode: (_runId, flags) => modes.push(flags) },
      externals: [
        {
          tools: ['rawprog'],
          program: program(async (sys, argv) => {
            const before = sys.ttyGetMode(1);
            sys.ttySetMode(0, TTY_ISIG);
            const size = sys.ttySize(1);
            await say(sys, `before=${before} now=${sys.ttyGetMode(2)} size=${size.cols}x${size.rows}\n`);
            if (argv[1] === 'restore') sys.ttySetMode(0, TTY_COOKED);
            return 0;
          }),
        },
      ],
    });
    const result = await t.run(['rawprog', 'restore'], { terminal: true, terminalSize: { cols: 100, rows: 30 } });
    expect(result.out).toBe(`before=${TTY_COOKED} now=${TTY_ISIG} size=100x30\n`);
    expect(modes).toEqual([TTY_ISIG, TTY_COOKED]);

    // Not restored by the program: its exit puts the terminal back, told once.
    modes.length = 0;
    await t.run(['rawprog'], { terminal: true });
    expect(modes).toEqual([TTY_ISIG, TTY_COOKED]);
    expect(t.kernel.tty.flags).toBe(TTY_COOKED);

    // Without a terminal there is no mode to set.
    const plain = createTestKernel({
      externals: [{ tools: ['ttyless'], program: program(async (sys) => (await say(sys, `${errnoOf(() => sys.ttyGetMode(1))} ${errnoOf(() => sys.ttySetMode(0, 0))}\n`), 0)) }],
    });
    const { Errno } = await import('../errno.js');
    expect((await plain.run(['ttyless'])).out).toBe(`${Errno.NOTTY} ${Errno.NOTTY}\n`);
  });

  it('is resized by the host, clamped to sane sizes', async () => {
    const t = createTestKernel({
      externals: [{ tools: ['size'], program: program(async (sys) => (await say(sys, `${sys.ttySize(1).cols}x${sys.ttySize(1).rows}\n`), 0)) }],
    });
    t.kernel.resizeTerminal({ cols: 132, rows: 43 });
    expect((await t.run(['size'], { terminal: true })).out).toBe('132x43\n');
    t.kernel.resizeTerminal({ cols: 0, rows: Number.NaN });
    expect((await t.run(['size'], { terminal: true })).out).toBe('1x1\n');
    t.kernel.resizeTerminal({ cols: 1e9, rows: 50 });
    expect((await t.run(['size'], { terminal: true })).out).toBe('10000x50\n');
  });

  it('is /dev/tty whatever stdin and stdout are, and ENXIO without one', async () => {
    const t = createTestKernel({
      externals: [
        {
          tools: ['devtty'],
          program: program(async (sys) => {
            let fd: number;
            try {
              fd = sys.openat(AT_FDCWD, '/dev/tty', { read: true, write: true });
            } catch (error) {
              await say(sys, `errno ${(error as KernelError).errno}\n`);
              return 1;
            }
            const key = decoder.decode((await sys.complete(sys.read(fd, 10))).slice());
            await sys.complete(sys.writeAll(fd, encoder.encode(`key=${key} tty=${sys.isatty(fd)} mode=${sys.ttyGetMode(fd) === (TTY_ISIG | TTY_ICANON | TTY_ECHO)}\n`)));
            return 0;
          }),
        },
      ],
    });
    expect((await t.run(['devtty'], { terminal: true, stdin: 'q' })).out).toBe('key=q tty=true mode=true\n');
    const { Errno } = await import('../errno.js');
    const refused = await t.run(['devtty']);
    expect(refused.out).toBe(`errno ${Errno.NXIO}\n`);
    expect(refused.exitCode).toBe(1);
  });
});

describe('/proc/<pid>/stat', () => {
  it('has Linux’s layout: pid, (comm), state, ppid, pgrp, tty_nr, CPU ticks, start time, memory', async () => {
    const t = createTestKernel({
      externals: [
        {
          tools: ['statme'],
          program: program(async (sys) => {
            const fd = sys.openat(AT_FDCWD, '/proc/self/stat', { read: true });
            const text = decoder.decode((await sys.complete(sys.read(fd, 4096))).slice());
            await say(sys, text);
            return 0;
          }),
        },
      ],
    });
    const out = (await t.run(['statme'], { terminal: true })).out;
    const match = /^(\d+) \(statme\) R (.*)\n$/.exec(out);
    expect(match).not.toBeNull();
    const fields = (match?.[2] ?? '').split(' ').map(Number);
    // 52 fields in all: pid, comm, state and 49 more.
    expect(fields).toHaveLength(49);
    expect(fields.every(Number.isFinite)).toBe(true);
    expect(fields[3]).toBe(136 << 8); // tty_nr: /dev/pts/0
    expect(fields[10]).toBeGreaterThanOrEqual(0); // utime
  });

  it('lists stat beside status for every process', async () => {
    const t = createTestKernel();
    expect((await t.run(['probe', 'ls', '/proc/self'])).out.split('\n')).toContain('stat');
  });
});
