// The interactive shell in an xterm.js terminal: the line editor at the prompt, each line
// run through the sandbox with `terminal: true` (programs see a tty, TERM, COLUMNS and
// LINES) and `interactive: true`, output streamed as it comes, Ctrl-C aborting the run, Tab
// completing commands and paths, Ctrl-R searching the history, and history persisted.
//
// Lines typed or pasted while a command runs are held here, as a terminal's input queue:
// a line goes to the program only when it waits to read its stdin (the kernel says so);
// lines no program reads become the next commands, as bash's type-ahead. While a program
// reads, its input has the same line editing (←/→, ↑/↓ through what was typed to programs).
//
// A full-screen program (less, more, top) turns the line discipline off (the kernel's
// terminal-mode event): every key then goes to it as typed, echoed only if it asks, Ctrl-C
// too unless it keeps signals on; the next run starts cooked again.
//
// Two words are the terminal's own: `exit` (or `logout`) ends the session shell and starts
// a fresh one (files are kept), and `edit FILE` / `code FILE` opens FILE in the editor.

import type { Terminal } from '@xterm/xterm';
import type { RunOptions, RunResult, TerminalMode } from '../../host/browser/index.js';
import { complete, type CompletionEntry } from './completion.js';
import { History } from './history.js';
import { LineEditor } from './line-editor.js';

/** What the terminal needs from the sandbox (the playground controller or the embed). */
export interface ShellHost {
  run(command: string, options: RunOptions): Promise<RunResult>;
  writeStdin(data: string | null): Promise<void>;
  readDir(path: string): Promise<CompletionEntry[]>;
  commands(): readonly string[];
  saveHistory?(entries: readonly string[]): void;
  /** The terminal's new size, for programs that ask (a pager, top). */
  resizeTerminal?(size: { cols: number; rows: number }): Promise<void>;
  /** Ctrl-C without the kill that aborting leads to (a program that handles SIGINT goes on). */
  interrupt?(): Promise<void>;
  /** Replaces the session shell by a fresh one, files kept (`exit`). */
  restartShell?(): Promise<void>;
  /** Opens a file in the editor, creating it when missing (`edit FILE`, `code FILE`). */
  openFile?(path: string): Promise<void>;
  /** Observers of every run (the embed forwards them to its parent page). */
  onOutput?(stream: 'stdout' | 'stderr', text: string): void;
  onExit?(line: string, result: RunResult | undefined): void;
}

export const SHELL_BUILTINS = 'alias bg bind break builtin caller cd command compgen complete continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait'.split(' ');

const HOME = '/home/user';
/** `exit` or `logout` typed at the prompt: the session shell ends. */
const EXIT_LINE = /^\s*(exit|logout)(\s+-?\d+)?\s*;?\s*$/;
/** `edit FILE` / `code FILE`: FILE opens in the editor. */
const EDIT_LINE = /^\s*(edit|code)(\s+(.*?))?\s*$/;
/** Columns Tab inserts in a program's input (Python blocks are indented by 4). */
const INPUT_TAB = '    ';

export class TerminalSession {
  private readonly editor: LineEditor;
  private cwd = HOME;
  private running: AbortController | undefined;
  /** The line editor of a running program's input (its own history). */
  private readonly input: LineEditor;
  private inputActive = false;
  /** Complete lines typed or pasted ahead, not yet read by any program. */
  private queued: string[] = [];
  /** A program waits to read and nothing was there for it. */
  private wanting = false;
  /** Ctrl-C was sent and the program has not written or read since: the next one aborts. */
  private interruptPending = false;
  /** Text output since the last newline: the prompt a program showed before reading. */
  private outputLine = '';
  private lastByte = 10;
  private disposed = false;
  private readonly subscriptions: Array<{ dispose(): void }> = [];
  /** Input typed before the prompt was ready, replayed into the editor. */
  private typedAhead = '';
  private ready = false;
  /** The mode a running program set when it is not cooked (keys then go to it as typed). */
  private rawMode: TerminalMode | undefined;

  constructor(
    private readonly terminal: Terminal,
    private readonly host: ShellHost,
    history: readonly string[] = [],
    private readonly hostname = 'sandbox',
  ) {
    this.editor = new LineEditor(terminal.cols, new History(history));
    this.input = new LineEditor(terminal.cols, new History());
    this.subscriptions.push(terminal.onData((data) => this.onData(data)));
    this.subscriptions.push(
      terminal.onResize(({ cols, rows }) => {
        this.editor.resize(cols);
        this.input.resize(cols);
        void this.host.resizeTerminal?.({ cols, rows });
      }),
    );
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
   * shows: a no-op run reports it, and the prompt is redrawn if it differs (unless a command
   * started meanwhile).
   */
  private async syncCwd(): Promise<void> {
    try {
      const probe = await this.host.run(':', {});
      if (probe.cwd === this.cwd || this.disposed || this.running !== undefined) return;
      this.cwd = probe.cwd;
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

  /** The Stop button: as Ctrl-C in the terminal (a second one stops the program for good). */
  stop(): void {
    if (this.running !== undefined) this.onRunningInput('\x03');
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

  /** While a program runs: keys edit its input line; Enter hands the line on (deliver). */
  private onRunningInput(data: string): void {
    if (this.rawMode !== undefined) {
      this.sendRaw(data, this.rawMode);
      return;
    }
    let remaining = data;
    while (remaining !== '' && this.running !== undefined) {
      if (!this.inputActive) {
        // The program's prompt is already on screen: the editor redraws from its text.
        this.input.begin(this.outputLine);
        this.inputActive = true;
      }
      const { output, action, rest } = this.input.feed(remaining);
      // ^C is echoed without a newline: the program (Python's KeyboardInterrupt) or the
      // next prompt starts the line.
      if (output) this.terminal.write(action?.kind === 'interrupt' ? output.replace(/\r\n$/, '') : output);
      remaining = rest;
      if (action === undefined) return;
      switch (action.kind) {
        case 'submit':
          this.inputActive = false;
          this.outputLine = '';
          this.lastByte = 10;
          this.deliver(`${action.line}\n`);
          break;
        case 'interrupt':
          this.interrupt();
          return;
        case 'eof':
          this.inputActive = false;
          this.lastByte = 10;
          this.wanting = false;
          void this.host.writeStdin(null);
          break;
        case 'complete':
          this.terminal.write(this.input.feed(INPUT_TAB).output);
          break;
        case 'clear-screen':
          break;
      }
    }
  }

  /**
   * Ctrl-C, as a terminal's interrupt: what was typed ahead is dropped. The first one is
   * SIGINT (a program may handle it and go on); another one before the program writes or
   * reads again aborts the run (killed if it does not end).
   */
  private interrupt(): void {
    this.inputActive = false;
    this.queued = [];
    this.lastByte = 0x43;
    this.outputLine = '';
    if (this.host.interrupt !== undefined && !this.interruptPending) {
      this.interruptPending = true;
      void this.host.interrupt();
    } else this.running?.abort();
  }

  /** Keys for a program that turned canonical mode off: as typed, Ctrl-C a signal if it wants. */
  private sendRaw(data: string, mode: TerminalMode): void {
    const signal = mode.signals ? data.indexOf('\x03') : -1;
    const keys = signal < 0 ? data : data.slice(0, signal);
    if (keys !== '') {
      if (mode.echo) this.terminal.write(keys);
      void this.host.writeStdin(keys);
    }
    if (signal >= 0) this.interrupt();
  }

  /** A running program changed the terminal's mode. */
  private setMode(mode: TerminalMode): void {
    this.rawMode = mode.canonical ? undefined : mode;
    if (this.rawMode === undefined) return;
    // Its keys go straight to it: nothing is being edited or waits in the queue for it.
    this.inputActive = false;
    this.wanting = false;
  }

  /** A line typed while a program runs: to the program if it waits, else queued. */
  private deliver(line: string): void {
    if (this.wanting) {
      this.wanting = false;
      void this.host.writeStdin(line);
    } else this.queued.push(line);
  }

  /** The running program waits to read: give it the oldest queued line, shown as typed. */
  private onStdinWanted(): void {
    this.interruptPending = false;
    // A program in raw mode gets its keys as they are typed, not lines from the queue.
    if (this.rawMode !== undefined) return;
    const line = this.queued.shift();
    if (line === undefined) {
      this.wanting = true;
      return;
    }
    this.terminal.write(line.replace(/\n$/, '\r\n'));
    this.input.history.add(line.replace(/\n$/, ''));
    this.outputLine = '';
    this.lastByte = 10;
    void this.host.writeStdin(line);
  }

  /** Text pasted after a command line: its complete lines queue quietly, the rest is being typed. */
  private queueAhead(text: string): void {
    const parts = text.replace(/\r\n?/g, '\n').split('\n');
    const partial = parts.pop() ?? '';
    for (const line of parts) this.queued.push(`${line}\n`);
    if (partial !== '') this.onRunningInput(partial);
  }

  /** What was typed ahead and not read: replayed at the next prompt, as commands. */
  private takeTypedAhead(): string {
    const typed = this.queued.map((line) => line.replace(/\n$/, '\r')).join('') + (this.inputActive ? this.input.buffer : '');
    this.queued = [];
    this.inputActive = false;
    this.wanting = false;
    return typed;
  }

  /** The size the terminal has now, for the run's environment. */
  private terminalEnv(): Record<string, string> {
    return { TERM: 'xterm-256color', COLUMNS: String(this.terminal.cols), LINES: String(this.terminal.rows) };
  }

  private async execute(line: string, typedAhead: string): Promise<void> {
    this.host.saveHistory?.(this.editor.history.all);
    if (line.trim() === '') {
      this.prompt();
      if (typedAhead) this.onData(typedAhead);
      return;
    }
    const edit = EDIT_LINE.exec(line);
    if (edit !== null && this.host.openFile !== undefined) {
      await this.openInEditor(edit[3] ?? '');
      this.prompt();
      if (typedAhead) this.onData(typedAhead);
      return;
    }
    const controller = new AbortController();
    this.running = controller;
    this.lastByte = 10;
    this.outputLine = '';
    this.queued = [];
    this.wanting = false;
    this.inputActive = false;
    this.interruptPending = false;
    const writer = (stream: 'stdout' | 'stderr') => (text: string, bytes: Uint8Array): void => {
      if (bytes.length === 0) return;
      this.interruptPending = false;
      this.lastByte = bytes[bytes.length - 1] as number;
      const newline = text.lastIndexOf('\n');
      this.outputLine = (newline < 0 ? this.outputLine + text : text.slice(newline + 1)).slice(-200);
      this.terminal.write(bytes);
      this.host.onOutput?.(stream, text);
    };
    if (typedAhead) this.queueAhead(typedAhead);
    let result: RunResult | undefined;
    try {
      result = await this.host.run(line, {
        onStdout: writer('stdout'),
        onStderr: writer('stderr'),
        onStdinWanted: () => this.onStdinWanted(),
        onTerminalMode: (mode) => this.setMode(mode),
        signal: controller.signal,
        terminal: true,
        terminalSize: { cols: this.terminal.cols, rows: this.terminal.rows },
        interactive: true,
        env: this.terminalEnv(),
        cwd: undefined,
      });
    } catch (error) {
      this.terminal.write(`\r\n\x1b[31mairlock: ${error instanceof Error ? error.message : String(error)}\x1b[0m\r\n`);
      this.lastByte = 10;
    } finally {
      this.running = undefined;
      this.rawMode = undefined;
    }
    const ahead = this.takeTypedAhead();
    if (this.disposed) return;
    if (this.lastByte !== 10) this.terminal.write('\r\n');
    // Every run reports the shell's directory after it: the prompt follows cd, pushd, ...
    if (result !== undefined) this.cwd = result.cwd;
    if (result !== undefined && EXIT_LINE.test(line) && result.errorClass === null && this.host.restartShell !== undefined) {
      await this.restartShell(result.exitCode);
      // The fresh shell comes with a fresh sandbox connection, and so a new session.
      if (this.disposed) return;
    }
    this.prompt();
    this.host.onExit?.(line, result);
    if (ahead) this.onData(ahead);
  }

  /** `exit`: a fresh session shell (variables, functions, directory reset; files kept). */
  private async restartShell(status: number): Promise<void> {
    this.terminal.write(`\x1b[2m[the shell exited with status ${status}; a fresh shell starts: variables, functions and the directory are reset, files are kept]\x1b[0m\r\n`);
    try {
      await this.host.restartShell?.();
      this.cwd = HOME;
    } catch (error) {
      this.terminal.write(`\x1b[31mairlock: a fresh shell could not start: ${error instanceof Error ? error.message : String(error)}\x1b[0m\r\n`);
    }
  }

  /** `edit FILE` / `code FILE`: opens FILE (relative to the directory) in the editor. */
  private async openInEditor(argument: string): Promise<void> {
    const word = argument.trim().replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1');
    if (word === '') {
      this.terminal.write('usage: edit FILE   (or: code FILE) opens FILE in the editor, creating it if needed\r\n');
      return;
    }
    try {
      await this.host.openFile?.(this.resolve(word));
    } catch (error) {
      this.terminal.write(`edit: ${word}: ${error instanceof Error ? error.message : String(error)}\r\n`);
    }
  }

  dispose(): void {
    this.disposed = true;
    this.running?.abort();
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
