// An asyncified wasm program: every process runs in an instance of the compiled module that
// is as if fresh — its memory holding only the data segments, the imports the kernel builds
// for it, and the asyncify data buffer allocated by the program itself before `_start`
// (docs/architecture.md §2). Every way the instance can end — proc_exit, a kill, a trap, the
// memory limit — becomes the process's status.
//
// Instantiating is most of what starting a small process costs (measured: ≈0.25 ms for
// coreutils, almost all of it V8 filling the 1,406-entry function table, and ≈0.1 ms to
// zero its 1.7 MB memory). So an instance whose process has ended is kept and restored to
// its image after instantiation (instance-image.ts: ≈0.03 ms) for the next process, when
// the module allows it; and a program that has run keeps instances ready, made or restored
// in turns the sandbox would otherwise spend idle: as many as its processes took between
// two such turns at most (a 3-stage pipeline of tools, or three tools one after another in
// a script, take three before the event loop gets a turn), up to MAX_SPARES.

import { endOf, type EndReason } from '../../proc/exit.js';
import type { Process } from '../../proc/process.js';
import type { Program, RunEnvironment } from '../../proc/process.js';
import { macrotask } from '../../proc/scheduler.js';
import { AsyncifyRunner, type AsyncifyExports } from './asyncify.js';
import { InstanceImage } from './instance-image.js';
import { WASM_PAGE, type MemoryPool } from './memory-pool.js';

export const DEFAULT_ASYNCIFY_BYTES = 256 * 1024;
/**
 * The most instances a program keeps ready (restored: each holds its whole memory
 * resident). Three: a 3-stage pipeline starts every stage on a ready instance.
 */
const MAX_SPARES = 3;
/** Instances a program keeps while no process runs in them (ready or to restore). */
const MAX_IDLE = 4;
/**
 * An instance whose memory grew past this is not reused: restoring it would cost about
 * what a new one does, and it would keep the memory.
 */
const MAX_REUSED_BYTES = 4 * 1024 * 1024;
/** asyncify_get_state() when the program is neither unwinding nor rewinding. */
const ASYNCIFY_NORMAL = 0;

/** An instance's imports, acting for the process bind() gives them, and its asyncify runner. */
export interface ProcessImports {
  imports: WebAssembly.Imports;
  runner: AsyncifyRunner;
  bind(process: Process): void;
}

/**
 * What the kernel gives every wasm process: its imports (the same ones again for a memory
 * whose process has ended), and memories to reuse.
 */
export interface WasmRuntime {
  imports(memory: WebAssembly.Memory): ProcessImports;
  readonly memories: MemoryPool;
}

type ProgramExports = AsyncifyExports & { _start: () => void; airlock_alloc: (size: number) => number };

/** An instance with its memory and imports: ready to become a process, running one, or ended. */
interface Instance {
  memory: WebAssembly.Memory;
  maxPages: number;
  runner: AsyncifyRunner;
  exports: ProgramExports;
  bind(process: Process): void;
}

export class MemoryLimitError extends Error {
  constructor(readonly limitBytes: number) {
    super(`memory limit reached: wasm memory is limited to ${limitBytes} bytes per process`);
    this.name = 'MemoryLimitError';
  }
}

export class WasmProgram implements Program {
  /** Instances no process has run since they were made or restored. */
  private readonly spares: Instance[] = [];
  /** Instances whose process has ended, restored before another process gets one. */
  private readonly ended: Instance[] = [];
  /** A fresh instance's image, once one was made; null: this module's instances are not reused. */
  private image: InstanceImage | undefined | null;
  private refilling = false;
  /** Instances taken since the spares were last refilled (the demand of one busy stretch). */
  private takenSinceRefill = 0;
  /** How many spares to keep: the largest such demand seen, at most MAX_SPARES. */
  private wanted = 1;
  /** How processes got their instance: ready, an ended one restored on the spot, or a new one. */
  readonly starts = { ready: 0, restored: 0, made: 0 };

  constructor(
    /** The module's name in the manifest (e.g. "coreutils"). */
    readonly name: string,
    readonly module: WebAssembly.Module,
    /** Initial pages of the memory the module imports. */
    readonly memoryMinPages: number,
    /** Bytes reserved for saved stacks while suspended. */
    readonly asyncifyBytes: number,
    readonly runtime: WasmRuntime,
  ) {
    this.image = InstanceImage.supports(module) ? undefined : null;
  }

  async run(process: Process, environment: RunEnvironment): Promise<void> {
    const { memoryLimitBytes } = environment;
    const maxPages = Math.max(this.memoryMinPages, Math.floor(memoryLimitBytes / WASM_PAGE));
    let running: Instance | undefined;
    // Where the program ends (synchronously, possibly inside another process's
    // Scheduler.driveUntil), so that its exit closes its descriptors at once.
    const conclude = (error: unknown): void => {
      process.end(...this.statusOf(error, process, environment, running?.memory, maxPages));
      if (running !== undefined) this.keepOrDrop(running);
      running = undefined;
    };
    try {
      if (this.memoryMinPages * WASM_PAGE > memoryLimitBytes) throw new MemoryLimitError(memoryLimitBytes);
      const instance = this.take(maxPages);
      running = instance;
      this.refillSoon(maxPages);
      instance.bind(process);
      // After bind: the allocator's first call asks the clock (dlmalloc seeds itself).
      const dataPtr = instance.exports.airlock_alloc(this.asyncifyBytes);
      if (dataPtr === 0) throw new MemoryLimitError(memoryLimitBytes);
      instance.runner.attach(instance.exports, instance.memory, dataPtr, this.asyncifyBytes);
      await instance.runner.run(() => instance.exports._start(), conclude).catch(() => undefined);
    } catch (error) {
      conclude(error);
    }
  }

  /** A fresh instance with its memory, not yet any process's (it makes no call until then). */
  private prepare(maxPages: number): Instance {
    const memory = this.runtime.memories.take(this.memoryMinPages, maxPages);
    try {
      const { imports, bind, runner } = this.runtime.imports(memory);
      const exports = new WebAssembly.Instance(this.module, imports).exports;
      if (this.image === undefined) this.image = InstanceImage.of(exports, memory);
      return { memory, maxPages, runner, exports: exports as unknown as ProgramExports, bind };
    } catch (error) {
      this.runtime.memories.give(memory, maxPages);
      throw error;
    }
  }

  /** An instance for a process: a ready one, else an ended one restored, else a new one. */
  private take(maxPages: number): Instance {
    this.takenSinceRefill += 1;
    if (this.takenSinceRefill > this.wanted) this.wanted = Math.min(MAX_SPARES, this.takenSinceRefill);
    const ready = this.popFitting(this.spares, maxPages);
    if (ready !== undefined) {
      this.starts.ready += 1;
      return ready;
    }
    const ended = this.popFitting(this.ended, maxPages);
    if (ended === undefined) {
      this.starts.made += 1;
      return this.prepare(maxPages);
    }
    this.starts.restored += 1;
    this.restore(ended);
    return ended;
  }

  /** The last instance of `list` made for `maxPages`; others met on the way are dropped (the limit changed). */
  private popFitting(list: Instance[], maxPages: number): Instance | undefined {
    for (let instance = list.pop(); instance !== undefined; instance = list.pop()) {
      if (instance.maxPages === maxPages) return instance;
      this.drop(instance);
    }
    return undefined;
  }

  /**
   * Keeps the instance of a process that has ended for a later one, if it can be restored:
   * whatever way the process ended (a crash may have left its memory and stack pointer in
   * any state: the restore puts back all of it), but not in the middle of an unwind or a
   * rewind, whose state is not reset.
   */
  private keepOrDrop(instance: Instance): void {
    const restorable =
      this.image instanceof InstanceImage &&
      this.spares.length + this.ended.length < MAX_IDLE &&
      instance.memory.buffer.byteLength <= MAX_REUSED_BYTES &&
      instance.exports.asyncify_get_state() === ASYNCIFY_NORMAL;
    if (restorable) this.ended.push(instance);
    else this.drop(instance);
  }

  private restore(instance: Instance): void {
    (this.image as InstanceImage).restore(instance.exports as unknown as WebAssembly.Exports, instance.memory);
  }

  /** Gives up an instance: its memory goes back to the pool (zeroed when taken again). */
  private drop(instance: Instance): void {
    this.runtime.memories.give(instance.memory, instance.maxPages);
  }

  /**
   * Makes spares ready in the turns after a busy stretch: every ended instance it needs
   * restored in the first turn (≈0.03 ms each), then new ones, one per macrotask so that
   * host messages and other work go first. One restore per turn was too slow: the next
   * run's request, arriving a turn later, found one ready instance for a pipeline's two
   * tools, and the second tool was restored on the spot, ~0.04 ms on the run's path.
   */
  private refillSoon(maxPages: number): void {
    if (this.refilling) return;
    this.refilling = true;
    const next = (): void => {
      // A turn of the event loop: the processes taken so far were one busy stretch.
      this.takenSinceRefill = 0;
      if (this.spares.length >= this.wanted) {
        this.refilling = false;
        return;
      }
      try {
        let restored = false;
        while (this.spares.length < this.wanted) {
          const ended = this.popFitting(this.ended, maxPages);
          if (ended === undefined) break;
          this.restore(ended);
          this.spares.push(ended);
          restored = true;
        }
        if (!restored) this.spares.push(this.prepare(maxPages));
      } catch {
        // Out of memory now: the next process makes its instance itself, and says why.
        this.refilling = false;
        return;
      }
      void macrotask().then(next);
    };
    void macrotask().then(next);
  }

  /** The status (and why) of an instance that ended with `error` (undefined: returned from _start). */
  private statusOf(error: unknown, process: Process, environment: RunEnvironment, memory: WebAssembly.Memory | undefined, maxPages: number): [number, EndReason] {
    if (error === undefined) return [0, 'exit'];
    const ended = endOf(error);
    if (ended !== undefined) return [ended.status, ended.reason];
    const name = process.argv[0] ?? process.tool;
    if (error instanceof MemoryLimitError) {
      environment.writeError(`${name}: ${error.message}\n`);
      environment.memoryLimitReached();
      return [137, 'crash'];
    }
    const size = memory?.buffer.byteLength ?? 0;
    // A program that aborts on a failed allocation (Rust's handle_alloc_error) with its memory
    // at the limit ran out of memoryBytes: say that, not "aborted".
    if (size + 4 * 1024 * 1024 >= maxPages * WASM_PAGE) {
      environment.writeError(`${name}: memory limit reached: wasm memory is limited to ${environment.memoryLimitBytes} bytes per process (memoryBytes)\n`);
      environment.memoryLimitReached();
      return [crashStatus(error), 'crash'];
    }
    environment.writeError(`${name}: ${describeCrash(error)}\n`);
    return [crashStatus(error), 'crash'];
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

/**
 * Reads the initial page count of the imported memory `env.memory` from the module's
 * import section (the JS API does not expose import limits).
 */
export function importedMemoryMinPages(bytes: Uint8Array): number {
  let offset = 8;
  const readVarUint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[offset++] as number;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
  };
  const readName = (): string => {
    const length = readVarUint();
    const name = new TextDecoder().decode(bytes.subarray(offset, offset + length));
    offset += length;
    return name;
  };
  while (offset < bytes.length) {
    const sectionId = bytes[offset++] as number;
    const sectionSize = readVarUint();
    const sectionEnd = offset + sectionSize;
    if (sectionId !== 2) {
      offset = sectionEnd;
      continue;
    }
    const count = readVarUint();
    for (let i = 0; i < count; i++) {
      const moduleName = readName();
      const fieldName = readName();
      const kind = bytes[offset++] as number;
      if (kind === 0) readVarUint();
      else if (kind === 1) {
        offset += 1;
        const flags = readVarUint();
        readVarUint();
        if (flags & 1) readVarUint();
      } else if (kind === 2) {
        const flags = readVarUint();
        const min = readVarUint();
        if (flags & 1) readVarUint();
        if (moduleName === 'env' && fieldName === 'memory') return min;
      } else if (kind === 3) offset += 2;
    }
    break;
  }
  throw new Error('module does not import env.memory (build with --import-memory)');
}
