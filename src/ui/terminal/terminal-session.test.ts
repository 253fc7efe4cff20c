// TerminalSession with a fake terminal and a fake sandbox: runs with terminal/interactive
// options, streaming output, stdin while a program runs, Ctrl-C, the prompt's directory,
// history saving and keys typed before the prompt.

import type { Terminal } from '@xterm/xterm';
import { describe, expect, it } from 'vitest';
import type { RunOptions, RunResult } from '../../host/browser/index.js';
import { TerminalSession, type ShellHost } from './terminal-session.js';

class FakeTerminal {
  cols = 80;
  written = '';
  private dataListener: (data: string) => void = () => undefined;
  onData(listener: (data: string) => void) {
    this.dataListener = listener;
    return { dispose: () => undefined };
  }
  onResize() {
    return { dispose: () => undefined };
  }
  write(data: string | Uint8Array): void {
    this.written += typeof data === 'string' ? data : new TextDecoder().decode(data);
  }
  clear(): void {
    this.written = '';
  }
  type(data: string): void {
    this.dataListener(data);
  }
}

function result(exitCode: number, stdout = '', errorClass: RunResult['errorClass'] = null, cwd = '/home/user'): RunResult {
  const bytes = new TextEncoder().encode(stdout);
  return { exitCode, stdout, stderr: '', stdoutBytes: bytes, stderrBytes: new Uint8Array(0), truncated: false, durationMs: 1, errorClass, cwd };
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

function setup(runImpl: (command: string, options: RunOptions) => Promise<RunResult>) {
  const terminal = new FakeTerminal();
  const calls: Array<{ command: string; options: RunOptions }> = [];
  const stdin: Array<string | null> = [];
  const saved: string[][] = [];
  const host: ShellHost = {
    run: (command, options) => {
      calls.push({ command, options });
      return runImpl(command, options);
    },
    writeStdin: async (data) => {
      stdin.push(typeof data === 'string' ? data : data === null ? null : new TextDecoder().decode(data));
    },
    readDir: async () => [{ name: 'notes.txt', kind: 'file' }],
    commands: () => ['ls', 'cat', 'zcat'],
    saveHistory: (entries) => saved.push([...entries]),
  };
  const session = new TerminalSession(terminal as unknown as Terminal, host, ['older']);
  return { terminal, session, calls, stdin, saved };
}

describe('TerminalSession', () => {
  it('shows the directory a restored shell is in', async () => {
    const { terminal, session } = setup(async () => result(0, '', null, '/home/user/project'));
    session.start();
    await tick();
    await tick();
    expect(terminal.written).toContain('~/project');
  });

  it('keeps keys typed before the prompt and runs lines as a terminal, streaming output', async () => {
    const { terminal, session, calls, saved } = setup(async (_command, options) => {
      options.onStdout?.('hi\n', new TextEncoder().encode('hi\n'));
      return result(0, 'hi\n');
    });
    terminal.type('echo hi\r');
    expect(calls).toHaveLength(0);
    session.start();
    await tick();
    expect(calls[0]?.command).toBe('echo hi');
    expect(calls[0]?.options).toMatchObject({ terminal: true, interactive: true });
    await tick();
    expect(terminal.written).toContain('hi\n');
    expect(saved.at(-1)).toEqual(['older', 'echo hi']);
    expect(terminal.written.endsWith('$ ')).toBe(true);
  });

  it('sends typed lines to stdin while a program runs, and Ctrl-C aborts it', async () => {
    let finish: (r: RunResult) => void = () => undefined;
    const { terminal, session, calls, stdin } = setup((command, options) => {
      if (command.startsWith('printf')) return Promise.resolve(result(0, '/home/user'));
      return new Promise((resolve) => {
        finish = resolve;
        options.signal?.addEventListener('abort', () => resolve(result(130, '', 'cancelled')));
      });
    });
    session.start();
    terminal.type('cat\r');
    await tick();
    expect(session.busy).toBe(true);
    // cat waits to read: the kernel's stdin-wanted event.
    calls.find((c) => c.command === 'cat')?.options.onStdinWanted?.();
    terminal.type('abc\x7fd\r');
    expect(stdin).toEqual(['abd\n']);
    terminal.type('\x04');
    expect(stdin).toEqual(['abd\n', null]);
    terminal.type('\x03');
    await tick();
    await tick();
    expect(session.busy).toBe(false);
    expect(calls.find((c) => c.command === 'cat')?.options.signal?.aborted).toBe(true);
    expect(terminal.written).toMatch(/\^C\r\n.*\$ $/s);
    finish(result(0));
  });

  it('queues lines typed or pasted while a command runs: a reading program gets them, the rest run next', async () => {
    const finishers: Array<() => void> = [];
    const { terminal, session, calls, stdin } = setup((command, options) => {
      if (command === ':') return Promise.resolve(result(0));
      return new Promise((resolve) => {
        finishers.push(() => resolve(result(0)));
        if (command === 'head -1') queueMicrotask(() => options.onStdinWanted?.());
      });
    });
    session.start();
    await tick();
    // A paste: the first line runs, the others wait (sleep reads nothing).
    terminal.type('sleep 2\recho one\recho two\rech');
    await tick();
    expect(calls.map((c) => c.command).filter((c) => c !== ':')).toEqual(['sleep 2']);
    expect(stdin).toEqual([]);
    terminal.type('o three\r');
    finishers.shift()?.();
    await tick();
    await tick();
    expect(calls.map((c) => c.command).filter((c) => c !== ':')).toEqual(['sleep 2', 'echo one']);
    finishers.shift()?.();
    await tick();
    await tick();
    finishers.shift()?.();
    await tick();
    await tick();
    expect(calls.map((c) => c.command).filter((c) => c !== ':')).toEqual(['sleep 2', 'echo one', 'echo two', 'echo three']);
    finishers.shift()?.();
    await tick();
    // A program that reads takes the next queued line; the one after runs as a command.
    terminal.type('head -1\rfirst\recho after\r');
    await tick();
    await tick();
    expect(stdin).toEqual(['first\n']);
    expect(terminal.written).toContain('first\r\n');
    finishers.shift()?.();
    await tick();
    await tick();
    expect(calls.map((c) => c.command).pop()).toBe('echo after');
  });

  it('passes TERM, COLUMNS and LINES with each run; `exit` starts a fresh shell; `edit` opens a file', async () => {
    const { terminal, session, calls } = setup(async () => result(0));
    const restarted: number[] = [];
    const opened: string[] = [];
    (session as unknown as { host: ShellHost }).host.restartShell = async () => void restarted.push(1);
    (session as unknown as { host: ShellHost }).host.openFile = async (path) => void opened.push(path);
    (terminal as unknown as { rows: number }).rows = 30;
    session.start();
    terminal.type('true\r');
    await tick();
    expect(calls.find((c) => c.command === 'true')?.options.env).toEqual({ TERM: 'xterm-256color', COLUMNS: '80', LINES: '30' });
    terminal.type('exit 3\r');
    await tick();
    await tick();
    expect(restarted).toEqual([1]);
    expect(terminal.written).toContain('the shell exited with status 0; a fresh shell starts');
    terminal.type('edit notes/todo.md\r');
    await tick();
    expect(opened).toEqual(['/home/user/notes/todo.md']);
    expect(calls.some((c) => c.command.startsWith('edit'))).toBe(false);
  });

  it('sends every key as typed to a program in raw mode (a pager), and is cooked again after it', async () => {
    let finish: (r: RunResult) => void = () => undefined;
    const interrupts: number[] = [];
    const { terminal, session, calls, stdin } = setup((command) => (command === 'less f' || command === 'cat' ? new Promise((resolve) => (finish = resolve)) : Promise.resolve(result(0))));
    (session as unknown as { host: ShellHost }).host.interrupt = async () => void interrupts.push(1);
    (terminal as unknown as { rows: number }).rows = 30;
    session.start();
    terminal.type('less f\r');
    await tick();
    const less = calls.find((c) => c.command === 'less f')?.options;
    expect(less?.terminalSize).toEqual({ cols: 80, rows: 30 });
    less?.onTerminalMode?.({ canonical: false, echo: false, signals: false });
    terminal.clear();
    terminal.type(' ');
    terminal.type('/x\r');
    terminal.type('\x1b[B');
    terminal.type('\x03');
    // Keys as typed, nothing echoed, Ctrl-C a key like the others.
    expect(stdin).toEqual([' ', '/x\r', '\x1b[B', '\x03']);
    expect(terminal.written).toBe('');
    expect(interrupts).toEqual([]);
    // Signals on: Ctrl-C is SIGINT, not a key.
    less?.onTerminalMode?.({ canonical: false, echo: false, signals: true });
    terminal.type('q\x03');
    expect(stdin.slice(4)).toEqual(['q']);
    expect(interrupts).toEqual([1]);
    finish(result(0));
    await tick();
    await tick();
    // The next program reads lines again.
    terminal.type('cat\r');
    await tick();
    calls.find((c) => c.command === 'cat')?.options.onStdinWanted?.();
    terminal.type('ab\r');
    expect(stdin.slice(5)).toEqual(['ab\n']);
  });

  it('shows the directory each run reports, without asking the shell again', async () => {
    const { terminal, session, calls } = setup(async (command) => (command === 'cd src' ? result(0, '', null, '/home/user/src') : command === 'cd /' ? result(0, '', null, '/') : result(0)));
    session.start();
    terminal.type('cd src\r');
    await tick();
    await tick();
    expect(calls.map((c) => c.command)).toEqual([':', 'cd src']);
    expect(terminal.written).toMatch(/~\/src\x1b\[0m\$ $/);
    terminal.type('cd /\r');
    await tick();
    await tick();
    expect(calls.map((c) => c.command)).toEqual([':', 'cd src', 'cd /']);
    expect(terminal.written).toMatch(/:\x1b\[1;34m\/\x1b\[0m\$ $/);
  });

  it('hands over the half-typed line (the pane gives it to the next session)', async () => {
    const { terminal, session } = setup(async () => result(0));
    expect(session.typedLine).toBe('');
    session.start();
    terminal.type('echo par');
    expect(session.typedLine).toBe('echo par');
  });

  it('completes commands and paths with Tab', async () => {
    const { terminal, session } = setup(async () => result(0));
    session.start();
    terminal.type('zc\t');
    await tick();
    expect(terminal.written).toContain('zcat ');
    terminal.type('no\t');
    await tick();
    await tick();
    expect(terminal.written).toContain('notes.txt ');
  });
});
