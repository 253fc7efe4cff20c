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

function result(exitCode: number, stdout = '', errorClass: RunResult['errorClass'] = null): RunResult {
  const bytes = new TextEncoder().encode(stdout);
  return { exitCode, stdout, stderr: '', stdoutBytes: bytes, stderrBytes: new Uint8Array(0), truncated: false, durationMs: 1, errorClass };
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
    const { terminal, session } = setup(async () => result(0, '/home/user/project'));
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

  it('asks the shell for its directory after cd, keeping the exit status', async () => {
    const { terminal, session, calls } = setup(async (command) => (command.startsWith('printf') ? result(0, '/home/user/src') : result(0)));
    session.start();
    terminal.type('cd src\r');
    await tick();
    await tick();
    await tick();
    expect(calls.map((c) => c.command)).toEqual(['printf %s "$PWD"', 'cd src', 'printf %s "$PWD"; (exit 0)']);
    expect(terminal.written).toContain('~/src');
    terminal.type('ls\r');
    await tick();
    expect(calls.map((c) => c.command)).toEqual(['printf %s "$PWD"', 'cd src', 'printf %s "$PWD"; (exit 0)', 'ls']);
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
