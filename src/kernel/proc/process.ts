// A process: one fresh instance of a compiled module, with its own memory, descriptor
// table, arguments, environment and working directory. It is discarded when it exits.

import { AsyncifyRunner, type AsyncifyExports } from '../wasi/asyncify.js';
import { FdTable } from '../wasi/fd-table.js';
import type { Blocker } from './blocker.js';
import { ProcessExit, ProcessKilled } from './exit.js';
import type { Program } from './module-registry.js';
import type { ProcessSyscalls } from './process-syscalls.js';
import type { MemoryPool } from './memory-pool.js';

export type ProcessState = 'new' | 'running' | 'exited';

export const WASM_PAGE = 65536;

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

/** The imports a process is instantiated with, built by the kernel for this process. */
export type ImportBuilder = (process: Process, runner: AsyncifyRunner) => WebAssembly.Imports;

/** What a process needs from the kernel to run. */
export interface RunEnvironment {
  buildImports: ImportBuilder;
  syscallsFor(process: Process): ProcessSyscalls;
  memoryLimitBytes: number;
  memories: MemoryPool;
  writeError(text: string): void;
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
  readonly ignoreSigpipe: boolean;
  umask: number;
  readonly fds = new FdTable();
  readonly startedAt = performance.now();

  state: ProcessState = 'new';
  status: number | undefined;
  /** How it ended, for the run result: normal exit, signal, deadline, crash. */
  endReason: 'exit' | 'signal' | 'deadline' | 'sigpipe' | 'crash' | undefined;
  blocker: Blocker | undefined;
  pendingKill: ProcessKilled | undefined;
  deadlineExempt = false;
  /** Not ended by signals (the session shell: Ctrl-C reaches it through session_poll). */
  signalExempt = false;
  /** Parent still interested in the status (false once reaped or orphaned). */
  awaitingReap = true;
  memory: WebAssembly.Memory | undefined;

  private readonly exitWaiters: Array<(status: number) => void> = [];
  private readonly finishHooks: Array<() => void> = [];
  private maxPages = 0;

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

  /** Resolves with the exit status once the process has ended. */
  exited(): Promise<number> {
    if (this.status !== undefined) return Promise.resolve(this.status);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  /**
   * Instantiates and runs the program to its end. Never rejects: every way a program can
   * end becomes an exit status. `writeError` reports crashes on the process's stderr.
   */
  async run(environment: RunEnvironment): Promise<number> {
    const { buildImports, memoryLimitBytes, memories } = environment;
    this.state = 'running';
    const program = this.program;
    this.maxPages = 0;
    try {
      if (program === undefined) throw new Error('process has no program');
      if (program.kind === 'external') {
        const status = (await program.run(this, environment.syscallsFor(this))) & 0xff;
        this.endReason = 'exit';
        this.finish(status);
        return status;
      }
      this.maxPages = Math.max(program.memoryMinPages, Math.floor(memoryLimitBytes / WASM_PAGE));
      if (program.memoryMinPages * WASM_PAGE > memoryLimitBytes) {
        throw new MemoryLimitError(memoryLimitBytes);
      }
      this.memory = memories.take(program.memoryMinPages, this.maxPages);
      const runner = new AsyncifyRunner();
      const instance = new WebAssembly.Instance(program.module, buildImports(this, runner));
      const exports = instance.exports as unknown as AsyncifyExports & {
        _start: () => void;
        airlock_alloc: (size: number) => number;
      };
      const dataPtr = exports.airlock_alloc(program.asyncifyBytes);
      if (dataPtr === 0) throw new MemoryLimitError(memoryLimitBytes);
      runner.attach(exports, this.memory, dataPtr, program.asyncifyBytes);
      // The end is handled where the program ends (synchronously, possibly inside another
      // process's Scheduler.driveUntil), so that its exit closes its descriptors at once.
      await runner.run(
        () => exports._start(),
        (error) => this.conclude(error, environment),
      ).catch(() => undefined);
    } catch (error) {
      this.conclude(error, environment);
    }
    return this.status ?? 1;
  }

  /** Turns how the program ended (an exception, or none) into its status, and finishes. */
  private conclude(error: unknown, environment: RunEnvironment): void {
    const { memoryLimitBytes, memories, writeError } = environment;
    let status: number;
    if (error === undefined) {
      status = 0;
      this.endReason = 'exit';
    } else if (error instanceof ProcessExit) {
      status = error.code & 0xff;
      this.endReason = 'exit';
    } else if (error instanceof ProcessKilled) {
      status = error.status;
      this.endReason = error.reason;
    } else if (error instanceof MemoryLimitError) {
      writeError(`${this.argv[0] ?? this.tool}: ${error.message}\n`);
      status = 137;
      this.endReason = 'crash';
    } else {
      status = crashStatus(error);
      this.endReason = 'crash';
      writeError(`${this.argv[0] ?? this.tool}: ${describeCrash(error)}\n`);
      const size = this.memory?.buffer.byteLength ?? 0;
      if (this.maxPages > 0 && size + 4 * 1024 * 1024 >= this.maxPages * WASM_PAGE) {
        writeError(`${this.argv[0] ?? this.tool}: memory limit reached: wasm memory is limited to ${memoryLimitBytes} bytes per process (memoryBytes)\n`);
      }
    }
    const memory = this.memory;
    this.finish(status);
    // A crashed process may have left its memory in any state; it is zeroed either way.
    if (memory !== undefined) memories.give(memory, this.maxPages);
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
    this.fds.closeAll();
    this.memory = undefined;
    for (const hook of this.finishHooks.splice(0)) hook();
    for (const waiter of this.exitWaiters.splice(0)) waiter(status);
  }
}

export class MemoryLimitError extends Error {
  constructor(readonly limitBytes: number) {
    super(`memory limit reached: wasm memory is limited to ${limitBytes} bytes per process`);
    this.name = 'MemoryLimitError';
  }
}

function crashStatus(error: unknown): number {
  // A Rust panic (panic=abort) traps with `unreachable`: like SIGABRT.
  if (error instanceof WebAssembly.RuntimeError && /unreachable/.test(error.message)) return 134;
  return 139;
}

function describeCrash(error: unknown): string {
  if (error instanceof WebAssembly.RuntimeError) {
    if (/unreachable/.test(error.message)) return 'aborted';
    return `crashed: ${error.message}`;
  }
  if (error instanceof RangeError) return `crashed: ${error.message}`;
  return `crashed: ${error instanceof Error ? error.message : String(error)}`;
}
