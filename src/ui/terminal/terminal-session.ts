// The interactive shell in an xterm.js terminal: the line editor at the prompt, each line
// run through the sandbox with `terminal: true` (programs see a tty) and `interactive: true`
// (what is typed while it runs goes to its stdin), output streamed as it comes, Ctrl-C
// aborting the run, Tab completing commands and paths, and history persisted.

import type { Terminal } from '@xterm/xterm';
import type { RunOptions, RunResult } from '../../host/browser/index.js';
import { complete, type CompletionEntry } from './completion.js';
import { History } from './history.js';
import { LineEditor, splitKeys } from './line-editor.js';

/** What the terminal needs from the sandbox (the playground controller or the embed). */
export interface ShellHost {
  run(command: string, options: RunOptions): Promise<RunResult>;
  writeStdin(data: string | null): Promise<void>;
  readDir(path: string): Promise<CompletionEntry[]>;
  commands(): readonly string[];
  saveHistory?(entries: readonly string[]): void;
  /** Observers of every run (the embed forwards them to its parent page). */
  onOutput?(stream: 'stdout' | 'stderr', text: string): void;
  onExit?(line: string, result: RunResult | undefined): void;
}

export const SHELL_BUILTINS = 'alias bg bind break builtin caller cd command compgen complete continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait'.split(' ');

const HOME = '/home/user';
/** Lines that may change the working directory: the prompt asks the shell for $PWD after them. */
const CHANGES_DIRECTORY = /(^|[\s;&|(])(cd|pushd|popd|source|\.|eval)(\s|$)/;

export class TerminalSession {
  private readonly editor: LineEditor;
  private cwd = HOME;
  private running: AbortController | undefined;
  /** The line typed while a program runs (the terminal's cooked mode). */
  private pendingInput = '';
  private lastByte = 10;
  private disposed = false;
  private readonly subscriptions: Array<{ dispose(): void }> = [];
  /** Input typed before the prompt was ready, replayed into the editor. */
  private typedAhead = '';
  private ready = false;

  constructor(
    private readonly terminal: Terminal,
    private readonly host: ShellHost,
    history: readonly string[] = [],
    private readonly hostname = 'sandbox',
  ) {
    this.editor = new LineEditor(terminal.cols, new History(history));
    this.subscriptions.push(terminal.onData((data) => this.onData(data)));
    this.subscriptions.push(terminal.onResize(({ cols }) => this.editor.resize(cols)));
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** The line being typed at the prompt (carried over when the session is replaced). */
  get typedLine(): string {
    return this.running === undefined && this.ready ? this.editor.buffer : '';
  }

  /** Shows the first prompt. */
  start(greeting = ''): void {
    if (greeting) this.terminal.write(greeting);
    this.ready = true;
    this.prompt();
    // Time to first prompt, read by bench/playground.bench.ts.
    if (performance.getEntriesByName('airlock-first-prompt').length === 0) performance.mark('airlock-first-prompt');
    if (this.typedAhead) {
      const typed = this.typedAhead;
      this.typedAhead = '';
      this.onData(typed);
    } else void this.syncCwd();
  }

  /**
   * A restored or reloaded shell may be in another directory than the home the first prompt
   * shows: ask it, and redraw the prompt if it differs (unless a command started meanwhile).
   */
  private async syncCwd(): Promise<void> {
    try {
      const probe = await this.host.run('printf %s "$PWD"', {});
      if (!probe.stdout.startsWith('/') || probe.stdout === this.cwd || this.disposed || this.running !== undefined) return;
      this.cwd = probe.stdout;
      this.redrawLine();
    } catch {
      // The prompt keeps showing the home directory.
    }
  }

  private promptText(): string {
    const shown = this.cwd === HOME ? '~' : this.cwd.startsWith(`${HOME}/`) ? `~${this.cwd.slice(HOME.length)}` : this.cwd;
    return `\x1b[1;32muser@${this.hostname}\x1b[0m:\x1b[1;34m${shown}\x1b[0m$ `;
  }

  private prompt(): void {
    this.terminal.write(this.editor.begin(this.promptText()));
  }

  /** Runs `command` as if typed at the prompt (the Run button); false while another runs. */
  runLine(command: string): boolean {
    if (this.running !== undefined || !this.ready) return false;
    this.terminal.write(this.editor.setLine(command));
    this.onData('\r');
    return true;
  }

  private onData(data: string): void {
    if (this.disposed) return;
    if (!this.ready) {
      this.typedAhead += data;
      return;
    }
    if (this.running !== undefined) {
      this.onRunningInput(data);
      return;
    }
    const { output, action, rest } = this.editor.feed(data);
    if (output) this.terminal.write(output);
    if (action === undefined) return;
    switch (action.kind) {
      case 'submit':
        void this.execute(action.line, rest);
        return;
      case 'interrupt':
        this.prompt();
        break;
      case 'eof':
        this.terminal.write('(this shell does not close: the sandbox lives as long as the page)\r\n');
        this.prompt();
        break;
      case 'clear-screen':
        this.terminal.clear();
        this.terminal.write('\x1b[H\x1b[2J');
        this.redrawLine();
        break;
      case 'complete':
        void this.complete().then(() => rest && this.onData(rest));
        return;
    }
    if (rest) this.onData(rest);
  }

  private redrawLine(): void {
    const { buffer, cursor } = this.editor;
    this.terminal.write(this.editor.begin(this.promptText()));
    this.terminal.write(this.editor.setLine(buffer, cursor));
  }

  private async complete(): Promise<void> {
    const { buffer, cursor } = this.editor;
    const result = await complete(buffer, cursor, {
      commands: [...this.host.commands(), ...SHELL_BUILTINS],
      listDir: (path) => this.host.readDir(this.resolve(path)),
    });
    if (result.candidates.length > 0) {
      const width = Math.max(...result.candidates.map((c) => c.length)) + 2;
      const perRow = Math.max(1, Math.floor(this.terminal.cols / width));
      let listing = '\r\n';
      result.candidates.forEach((c, i) => (listing += c.padEnd(width) + ((i + 1) % perRow === 0 ? '\r\n' : '')));
      if (result.candidates.length % perRow !== 0) listing += '\r\n';
      this.terminal.write(listing);
      this.terminal.write(this.editor.begin(this.promptText()));
    }
    this.terminal.write(this.editor.setLine(result.line, result.cursor));
  }

  private resolve(path: string): string {
    const expanded = path === '~' ? HOME : path.startsWith('~/') ? HOME + path.slice(1) : path;
    if (expanded.startsWith('/')) return expanded;
    return expanded === '.' ? this.cwd : `${this.cwd}/${expanded}`;
  }

  /** While a program runs: a minimal cooked mode (echo, erase, line-at-a-time stdin). */
  private onRunningInput(data: string): void {
    for (const key of splitKeys(data)) {
      if (key === '\x03') {
        this.terminal.write('^C');
        // Not a newline: the prompt after the run starts on a line of its own.
        this.lastByte = 0x43;
        this.running?.abort();
        return;
      } else if (key === '\x04') {
        const line = this.pendingInput;
        this.pendingInput = '';
        void this.host.writeStdin(line === '' ? null : line);
      } else if (key === '\r' || key === '\n') {
        const line = `${this.pendingInput}\n`;
        this.pendingInput = '';
        this.terminal.write('\r\n');
        this.lastByte = 10;
        void this.host.writeStdin(line);
      } else if (key === '\x7f' || key === '\b') {
        if (this.pendingInput.length > 0) {
          this.pendingInput = [...this.pendingInput].slice(0, -1).join('');
          this.terminal.write('\b \b');
        }
      } else if (key >= ' ' && !key.startsWith('\x1b')) {
        this.pendingInput += key;
        this.terminal.write(key);
      }
    }
  }

  private async execute(line: string, typedAhead: string): Promise<void> {
    this.host.saveHistory?.(this.editor.history.all);
    if (line.trim() === '') {
      this.prompt();
      if (typedAhead) this.onData(typedAhead);
      return;
    }
    const controller = new AbortController();
    this.running = controller;
    this.lastByte = 10;
    const writer = (stream: 'stdout' | 'stderr') => (text: string, bytes: Uint8Array): void => {
      if (bytes.length === 0) return;
      this.lastByte = bytes[bytes.length - 1] as number;
      this.terminal.write(bytes);
      this.host.onOutput?.(stream, text);
    };
    if (typedAhead) queueMicrotask(() => this.onRunningInput(typedAhead));
    let result: RunResult | undefined;
    try {
      result = await this.host.run(line, { onStdout: writer('stdout'), onStderr: writer('stderr'), signal: controller.signal, terminal: true, interactive: true, cwd: undefined });
    } catch (error) {
      this.terminal.write(`\r\n\x1b[31mairlock: ${error instanceof Error ? error.message : String(error)}\x1b[0m\r\n`);
      this.lastByte = 10;
    } finally {
      this.running = undefined;
      this.pendingInput = '';
    }
    if (this.disposed) return;
    if (this.lastByte !== 10) this.terminal.write('\r\n');
    if (result !== undefined && CHANGES_DIRECTORY.test(line) && result.errorClass === null) await this.refreshCwd(result.exitCode);
    this.prompt();
    this.host.onExit?.(line, result);
  }

  /** Asks the shell for $PWD, then restores the exit status the user's line left in $?. */
  private async refreshCwd(exitCode: number): Promise<void> {
    try {
      const probe = await this.host.run(`printf %s "$PWD"; (exit ${exitCode})`, {});
      if (probe.stdout.startsWith('/')) this.cwd = probe.stdout;
    } catch {
      // The prompt keeps the previous directory.
    }
  }

  dispose(): void {
    this.disposed = true;
    this.running?.abort();
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
