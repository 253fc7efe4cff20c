// A process: one run of a program, with its own descriptor table, arguments, environment
// and working directory, and how it ended; it is discarded when it exits. What runs it is
// its program's business: an asyncified wasm module instantiated afresh
// (abi/wasm/wasm-program.ts), or a program whose code runs elsewhere and reaches the kernel
// through the syscall core (Python, sys/external-program.ts).

import { FdTable } from '../fd/fd-table.js';
import type { Blocker } from '../fd/blocker.js';
import type { EndReason, ProcessKilled } from './exit.js';

/** What the process table gives a program to run a process with. */
export interface RunEnvironment {
  /** The sandbox's per-process memory limit (memoryBytes). */
  memoryLimitBytes: number;
  /** Writes a kernel message (a crash, a limit) on the process's stderr. */
  writeError(text: string): void;
  /** The process ended because its memory reached memoryBytes (the run then reports the limit). */
  memoryLimitReached(): void;
}

export interface Program {
  /** The program's name (a wasm module's name in the manifest, e.g. "coreutils"). */
  readonly name: string;
  /**
   * Runs `process` to its end and ends it (Process.end) on every path: every way a program
   * can end becomes an exit status. Never rejects.
   */
  run(process: Process, environment: RunEnvironment): Promise<void>;
}

export type ProcessState = 'new' | 'running' | 'exited';

export interface ProcessSpec {
  pid: number;
  ppid: number;
  pgid: number;
  tool: string;
  /** Undefined for processes that never run code (refusals). */
  program: Program | undefined;
  argv: string[];
  env: string[];
  cwd: string;
  cwdIno: number;
  blob: Uint8Array;
  ignoreSigpipe: boolean;
  umask: number;
}

export class Process {
  readonly pid: number;
  readonly ppid: number;
  pgid: number;
  readonly tool: string;
  readonly program: Program | undefined;
  argv: string[];
  env: string[];
  cwd: string;
  cwdIno: number;
  readonly blob: Uint8Array;
  /** EPIPE is returned instead of ending the process (SIG_IGN for SIGPIPE, as CPython sets). */
  ignoreSigpipe: boolean;
  umask: number;
  readonly fds = new FdTable();
  readonly startedAt = performance.now();
  /** When it ended (performance.now()). */
  endedAt: number | undefined;
  /** Time spent waiting (the scheduler keeps it): CPU time is the rest of its life. */
  waitedMs = 0;
  waitingSince: number | undefined;
  /** Bytes of memory it holds, when its program can tell (a wasm instance's memory). */
  memoryBytes: (() => number) | undefined;

  state: ProcessState = 'new';
  status: number | undefined;
  endReason: EndReason | undefined;
  blocker: Blocker | undefined;
  pendingKill: ProcessKilled | undefined;
  /**
   * Set by a program that handles SIGINT itself (Python: KeyboardInterrupt). SIGINT then
   * calls it and ends the current wait with EINTR instead of killing the process.
   */
  interruptHandler: (() => void) | undefined;
  deadlineExempt = false;
  /** Not ended by signals (the session shell: Ctrl-C reaches it through session_poll). */
  signalExempt = false;
  /** Parent still interested in the status (false once reaped or orphaned). */
  awaitingReap = true;

  private readonly exitWaiters: Array<(status: number) => void> = [];
  private readonly finishHooks: Array<() => void> = [];

  constructor(spec: ProcessSpec) {
    this.pid = spec.pid;
    this.ppid = spec.ppid;
    this.pgid = spec.pgid;
    this.tool = spec.tool;
    this.program = spec.program;
    this.argv = spec.argv;
    this.env = spec.env;
    this.cwd = spec.cwd;
    this.cwdIno = spec.cwdIno;
    this.blob = spec.blob;
    this.ignoreSigpipe = spec.ignoreSigpipe;
    this.umask = spec.umask;
  }

  /**
   * CPU time in ms: its life so far less its waits. All processes share one thread and a
   * process runs until it waits, so this is the time the thread spent on it (give or take
   * the moments it was ready but another ran).
   */
  cpuMs(at = performance.now()): number {
    const end = this.endedAt ?? at;
    const waiting = this.waitingSince === undefined ? 0 : end - this.waitingSince;
    return Math.max(0, end - this.startedAt - this.waitedMs - waiting);
  }

  /** Resolves with the exit status once the process has ended. */
  exited(): Promise<number> {
    if (this.status !== undefined) return Promise.resolve(this.status);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  /** Ends the process with `status`, saying why (what its program reports at its end). */
  end(status: number, reason: EndReason): void {
    if (this.status !== undefined) return;
    this.endReason = reason;
    this.finish(status);
  }

  /** Runs `hook` synchronously when the process finishes (the kernel's exit bookkeeping). */
  onFinish(hook: () => void): void {
    this.finishHooks.push(hook);
  }

  /** Ends the process: its status, its descriptors closed (also for spawn-time failures). */
  finish(status: number): void {
    if (this.status !== undefined) return;
    this.status = status;
    this.state = 'exited';
    this.endedAt = performance.now();
    this.fds.closeAll();
    for (const hook of this.finishHooks.splice(0)) hook();
    for (const waiter of this.exitWaiters.splice(0)) waiter(status);
  }
}
