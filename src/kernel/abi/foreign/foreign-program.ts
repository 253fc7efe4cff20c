// Foreign WASI programs: any wasm32-wasi command found in the filesystem (`./prog.wasm`, a
// package in /usr/local/bin), run as a process. Such a module is not asyncified, so it
// cannot suspend on the kernel thread; it runs in a worker of its own and blocks there in
// Atomics.wait while the kernel serves each system call (docs/architecture.md §2, the
// measured choice against asyncifying it with Binaryen).
//
// The module's memory is rewritten into an imported shared memory (foreign-module.ts), so
// the kernel thread runs WASI preview1 exactly as for its own tools — the same
// createWasiImports, the same SyscallGate and syscall core — reading and writing the
// program's memory directly; the worker only forwards each call's index and arguments
// (call-channel.ts). A wait (an empty pipe, a full pipe, sleep) parks the process in the
// scheduler like any other; the worker stays asleep until the answer.
//
// Limits: the memory's maximum is the sandbox's memoryBytes; the kernel deadline and
// kills end a process at its next call, and one busy without calls has its worker
// terminated (no other process is affected). Workers are reused, one process at a time.

import type { EndReason } from '../../proc/exit.js';
import type { Process, Program, RunEnvironment } from '../../proc/process.js';
import type { Scheduler } from '../../proc/scheduler.js';
import { endByThrow } from '../../sys/external-program.js';
import type { Syscalls } from '../../sys/syscalls.js';
import type { FileInode } from '../../vfs/inode.js';
import { Suspension, type SyscallResult } from '../wasm/asyncify.js';
import { WASM_PAGE } from '../wasm/memory-pool.js';
import { ProcessMemory } from '../wasm/process-memory.js';
import { SyscallGate, type SuspendingRunner } from '../wasm/syscall-gate.js';
import { ForeignCallHost, type ForeignEnd } from './call-channel.js';
import type { ForeignRunOrder, ForeignWorkerInit } from './foreign-instance.js';
import { ForeignModuleError, inspectForeignModule, shareMemory, type ForeignModuleShape } from './foreign-module.js';
import { WASI_SIGNATURES } from './wasi-signatures.js';

/** A started worker, as the platform gives it. */
export interface ForeignWorkerHandle {
  post(order: ForeignRunOrder): void;
  terminate(): void;
  /** Resolves with a reason if the worker fails on its own (a crash, an engine error). */
  readonly failed: Promise<string>;
}

/** Starts a worker running ForeignWorkerRuntime (workers/wasi-*-worker.ts). */
export type ForeignWorkerFactory = (init: ForeignWorkerInit) => ForeignWorkerHandle;

/** What the runner needs of the kernel. */
export interface ForeignKernel {
  readonly scheduler: Scheduler;
  syscalls(process: Process): Syscalls;
  createWasiImports(memory: ProcessMemory, gate: SyscallGate): Record<string, (...args: never[]) => number>;
}

/** Status of a process whose program cannot run at all (bash's "cannot execute"). */
export const CANNOT_EXECUTE = 126;
/** Idle workers kept for the next foreign process. */
const IDLE_WORKERS = 4;
/** Modules one worker keeps; past this it is retired rather than reused. */
const MODULES_PER_WORKER = 32;
/** Compiled modules kept by the kernel. */
const CACHED_MODULES = 32;
/** How often a busy program is checked for a kill or the deadline. */
const WATCHDOG_MS = 20;

/** The channel's runner: a Suspension is handed back to the serving loop instead of unwinding a stack. */
const CHANNEL_RUNNER: SuspendingRunner = {
  canSuspend: true,
  // The serving loop reads the SyscallResult; the type says number because asyncify's does.
  wrap: <A extends number[]>(fn: (...args: A) => SyscallResult) => fn as (...args: A) => number,
};

interface LoadedModule {
  id: number;
  module: WebAssembly.Module;
  shape: ForeignModuleShape;
}

class Worker {
  readonly channel = ForeignCallHost.create();
  readonly handle: ForeignWorkerHandle;
  readonly known = new Set<number>();

  constructor(factory: ForeignWorkerFactory) {
    this.handle = factory({ channel: this.channel.buffer });
  }

  retire(): void {
    this.channel.close();
    this.handle.terminate();
  }
}

/** The foreign-program runner of one kernel: compiled modules and idle workers. */
export class ForeignRunner {
  private readonly modules = new Map<string, Promise<LoadedModule>>();
  private readonly idle: Worker[] = [];
  private nextModuleId = 1;

  constructor(
    private readonly kernel: ForeignKernel,
    private readonly factory: ForeignWorkerFactory,
  ) {}

  /** The program that runs the wasm module in `file` (its content as it is now). */
  programFor(file: FileInode, name: string): Program {
    return new ForeignProgram(this, file, name);
  }

  /** The module of `file`, compiled once per content (keyed by inode, ctime and size). */
  load(file: FileInode, maxPages: number): Promise<LoadedModule> {
    const key = `${file.ino}:${file.ctimeNs}:${file.size}:${maxPages}`;
    let loaded = this.modules.get(key);
    if (loaded === undefined) {
      // A copy: the file may change while the module compiles.
      const bytes = file.data.slice(0, file.size);
      loaded = this.compile(bytes, maxPages);
      this.modules.set(key, loaded);
      loaded.catch(() => this.modules.delete(key));
      if (this.modules.size > CACHED_MODULES) this.modules.delete(this.modules.keys().next().value as string);
    } else {
      // Most recently used last.
      this.modules.delete(key);
      this.modules.set(key, loaded);
    }
    return loaded;
  }

  private async compile(bytes: Uint8Array, maxPages: number): Promise<LoadedModule> {
    const shape = inspectForeignModule(bytes);
    let module: WebAssembly.Module;
    try {
      module = await WebAssembly.compile(shareMemory(bytes, shape, maxPages) as Uint8Array<ArrayBuffer>);
    } catch (error) {
      throw new ForeignModuleError(`not a valid wasm module: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!WebAssembly.Module.exports(module).some((e) => e.name === '_start' && e.kind === 'function')) {
      throw new ForeignModuleError('not a WASI command: it exports no _start function (a reactor or a library?)');
    }
    return { id: this.nextModuleId++, module, shape };
  }

  take(): Worker {
    return this.idle.pop() ?? new Worker(this.factory);
  }

  give(worker: Worker): void {
    if (this.idle.length >= IDLE_WORKERS || worker.known.size > MODULES_PER_WORKER) worker.retire();
    else this.idle.push(worker);
  }

  get scheduler(): Scheduler {
    return this.kernel.scheduler;
  }

  imports(process: Process, memory: WebAssembly.Memory): Array<(...args: Array<number | bigint>) => SyscallResult> {
    const gate = new SyscallGate(this.kernel.scheduler, CHANNEL_RUNNER);
    gate.bind(this.kernel.syscalls(process));
    const wasi = this.kernel.createWasiImports(new ProcessMemory(memory), gate);
    return WASI_SIGNATURES.map(([name]) => wasi[name] as unknown as (...args: Array<number | bigint>) => SyscallResult);
  }
}

class ForeignProgram implements Program {
  constructor(
    private readonly runner: ForeignRunner,
    private readonly file: FileInode,
    readonly name: string,
  ) {}

  async run(process: Process, environment: RunEnvironment): Promise<void> {
    const label = process.argv[0] ?? this.name;
    const maxPages = Math.floor(environment.memoryLimitBytes / WASM_PAGE);
    let loaded: LoadedModule;
    try {
      loaded = await this.runner.load(this.file, maxPages);
    } catch (error) {
      if (!(error instanceof ForeignModuleError)) throw error;
      environment.writeError(`${label}: cannot run: ${error.message}\n`);
      process.end(CANNOT_EXECUTE, 'exit');
      return;
    }
    if (process.pendingKill !== undefined) {
      process.end(process.pendingKill.status, process.pendingKill.reason);
      return;
    }
    const wanted = loaded.shape.memory;
    if (wanted !== undefined && wanted.min > maxPages) {
      environment.writeError(`${label}: memory limit reached: the module needs ${wanted.min * WASM_PAGE} bytes; wasm memory is limited to ${environment.memoryLimitBytes} bytes per process (memoryBytes)\n`);
      process.end(137, 'crash');
      return;
    }
    const memory = wanted === undefined ? undefined : new WebAssembly.Memory({ initial: wanted.min, maximum: Math.min(maxPages, wanted.max ?? maxPages), shared: true });
    const worker = this.runner.take();
    const calls = this.runner.imports(process, memory ?? new WebAssembly.Memory({ initial: 0 }));
    const order: ForeignRunOrder = { op: 'run', moduleId: loaded.id, memory };
    if (!worker.known.has(loaded.id)) {
      order.module = loaded.module;
      worker.known.add(loaded.id);
    }
    worker.handle.post(order);
    const ended = await this.serve(worker, process, environment, calls);
    if (ended.kind === 'reusable') this.runner.give(worker);
    else worker.retire();
    if (ended.end !== undefined) this.conclude(process, environment, ended.end, memory, maxPages);
  }

  /**
   * Answers the worker's calls until its run ends. Returns whether the worker can be
   * reused, and how the run ended when the program ended it (not the kernel).
   */
  private async serve(worker: Worker, process: Process, environment: RunEnvironment, calls: Array<(...args: Array<number | bigint>) => SyscallResult>): Promise<{ kind: 'reusable' | 'dead'; end?: ForeignEnd }> {
    const { channel, handle } = worker;
    let inCall = false;
    let stopped: ((reason: string) => void) | undefined;
    const stop = new Promise<string>((resolve) => {
      stopped = resolve;
    });
    // A program busy without system calls meets kills and the deadline here.
    const watchdog = setInterval(() => {
      if (!inCall && process.pendingKill !== undefined) stopped?.('killed');
    }, WATCHDOG_MS);
    const failed = handle.failed.then((reason) => `worker: ${reason}`);
    try {
      for (;;) {
        const next = await Promise.race([channel.next(), stop, failed]);
        if (typeof next === 'string' || next === undefined) {
          const kill = process.pendingKill;
          if (kill !== undefined) process.end(kill.status, kill.reason);
          else process.end(139, 'crash');
          return { kind: 'dead' };
        }
        if (next.op === 'end') {
          if (next.end.how === 'unwound' || process.status !== undefined) {
            channel.unwind();
            return { kind: 'reusable' };
          }
          channel.unwind();
          return { kind: 'reusable', end: next.end };
        }
        const call = calls[next.index];
        if (call === undefined || process.status !== undefined) {
          channel.unwind();
          continue;
        }
        inCall = true;
        try {
          let result = call(...next.args);
          while (result instanceof Suspension) {
            const pending = result;
            await new Promise<void>((resolve) => pending.park(resolve));
            result = pending.resume();
          }
          channel.answer(result);
        } catch (error) {
          // Errnos were answered by the gate; what is left ends the process: proc_exit, a
          // kill, or a kernel fault, which crashes it as it would one of our own tools.
          endByThrow(process, environment, error, this.name);
          channel.unwind();
        } finally {
          inCall = false;
        }
      }
    } finally {
      clearInterval(watchdog);
    }
  }

  private conclude(process: Process, environment: RunEnvironment, end: ForeignEnd, memory: WebAssembly.Memory | undefined, maxPages: number): void {
    if (end.how !== 'trapped') {
      process.end(0, 'exit');
      return;
    }
    const label = process.argv[0] ?? this.name;
    environment.writeError(`${label}: ${end.unreachable ? 'aborted' : `crashed: ${end.message}`}\n`);
    const size = memory?.buffer.byteLength ?? 0;
    if (memory !== undefined && size + 4 * 1024 * 1024 >= maxPages * WASM_PAGE) {
      environment.writeError(`${label}: memory limit reached: wasm memory is limited to ${environment.memoryLimitBytes} bytes per process (memoryBytes)\n`);
    }
    const reason: EndReason = 'crash';
    process.end(end.unreachable ? 134 : 139, reason);
  }
}
