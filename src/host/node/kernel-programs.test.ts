// The kernel's own programs (ps, top, less, more, man) in a real sandbox, through the
// session shell: in pipelines, on a terminal, with the coreutils' --help as manual pages.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, drainWarmPool, type TerminalMode } from './index.js';

const shellBuilt = existsSync(fileURLToPath(new URL('../../../public/wasm/shell.wasm', import.meta.url)));
const TIMEOUT = 120_000;

let sandbox: Sandbox;

describe.skipIf(!shellBuilt)('ps, top, less, more and man in a sandbox', { timeout: TIMEOUT }, () => {
  beforeAll(async () => {
    sandbox = await Sandbox.create({});
  }, TIMEOUT);

  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
  });

  it('ps shows the session shell and a pipeline’s processes', async () => {
    // sleep is started before ps, so ps sees it whatever the timing (in `ps -ef | cat`, as in
    // bash, ps may be done before cat is started).
    const result = await sandbox.run('sleep 1 | ps -ef');
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('UID          PID    PPID  C STIME TTY          TIME CMD');
    expect(lines.some((line) => / bash --airlock-session/.test(line))).toBe(true);
    expect(lines.some((line) => / ps -ef$/.test(line))).toBe(true);
    expect(lines.some((line) => / sleep 1$/.test(line))).toBe(true);
    expect((await sandbox.run('top -b -n 1 | head -1')).stdout).toMatch(/^top - \d\d:\d\d:\d\d up /);
  });

  it('less and more copy a pipe when stdout is not a terminal; less pages it on one', async () => {
    expect((await sandbox.run('printf "a\\nb\\n" | less | wc -l')).stdout).toBe('2\n');
    expect((await sandbox.run('printf "x\\n" > one; printf "y\\n" > two; more one two')).stdout).toBe('::::::::::::::\none\n::::::::::::::\nx\n::::::::::::::\ntwo\n::::::::::::::\ny\n');
    const modes: TerminalMode[] = [];
    // On a terminal: the keys (here the run's stdin) reach less through /dev/tty even
    // though its stdin is the pipe.
    const paged = await sandbox.run('seq 100 | less', { terminal: true, terminalSize: { cols: 40, rows: 10 }, stdin: ' q', onTerminalMode: (mode) => modes.push(mode) });
    expect(paged.exitCode).toBe(0);
    expect(paged.stdout).toContain('\x1b[?1049h');
    expect(paged.stdout).toContain('\r\n18\x1b[K\r\n:');
    expect(modes).toEqual([{ canonical: false, echo: false, signals: false }, { canonical: true, echo: true, signals: true }]);
  });

  it('man makes pages from --help and from help for builtins, and says when there is none', async () => {
    const ls = await sandbox.run('man ls');
    expect(ls.exitCode).toBe(0);
    expect(ls.stdout).toMatch(/^LS\(1\) +User Commands +LS\(1\)\n\nNAME\n {7}ls - List information about the FILEs/);
    expect(ls.stdout).toContain('\nDESCRIPTION\n       Usage: ls [OPTION]... [FILE]...\n');
    const cd = await sandbox.run('man cd');
    expect(cd.stdout).toMatch(/^CD\(1\) +Shell Builtins +CD\(1\)\n/);
    expect(await sandbox.run('man no-such-thing')).toMatchObject({ exitCode: 16, stderr: 'No manual entry for no-such-thing\n' });
    expect((await sandbox.run('man -k gre')).stdout).toMatch(/^grep \(1\) +- /m);
    expect((await sandbox.run('man')).stderr).toBe("What manual page do you want?\nFor example, try 'man man'.\n");
  });
});
