// An asyncified wasm program: every process is a fresh instance of the compiled module with
// its own zeroed linear memory (from the sandbox's pool), the imports the kernel builds for
// it, and the asyncify data buffer allocated by the program itself before `_start`
// (docs/architecture.md §2). Every way the instance can end — proc_exit, a kill, a trap, the
// memory limit — becomes the process's status.
//
// Instantiating is most of what starting a small process costs (measured: ≈0.25 ms for
// coreutils, almost all of it V8 filling the 1,406-entry function table, and ≈0.1 ms to
// zero its 1.7 MB memory), so a program that has run keeps SPARES instances made ahead, in
// turns the sandbox would otherwise spend idle: a spare is a fresh instance that no process
// has run, given its process when one starts.

import { endOf, type EndReason } from '../../proc/exit.js';
import type { Process } from '../../proc/process.js';
import type { Program, RunEnvironment } from '../../proc/process.js';
import { macrotask } from '../../proc/scheduler.js';
import { AsyncifyRunner, type AsyncifyExports } from './asyncify.js';
import { WASM_PAGE, type MemoryPool } from './memory-pool.js';

export const DEFAULT_ASYNCIFY_BYTES = 256 * 1024;
/** Instances a program keeps made ahead once it has run. */
const SPARES = 2;

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

/** An instance made ahead, ready to become a process. */
interface Spare {
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
  private readonly spares: Spare[] = [];
  private refilling = false;

  constructor(
    /** The module's name in the manifest (e.g. "coreutils"). */
    readonly name: string,
    readonly module: WebAssembly.Module,
    /** Initial pages of the memory the module imports. */
    readonly memoryMinPages: number,
    /** Bytes reserved for saved stacks while suspended. */
    readonly asyncifyBytes: number,
    private readonly runtime: WasmRuntime,
  ) {}

  async run(process: Process, environment: RunEnvironment): Promise<void> {
    const { memoryLimitBytes } = environment;
    const maxPages = Math.max(this.memoryMinPages, Math.floor(memoryLimitBytes / WASM_PAGE));
    let memory: WebAssembly.Memory | undefined;
    // Where the program ends (synchronously, possibly inside another process's
    // Scheduler.driveUntil), so that its exit closes its descriptors at once.
    const conclude = (error: unknown): void => {
      process.end(...this.statusOf(error, process, environment, memory, maxPages));
      // A crashed process may have left its memory in any state; it is zeroed before reuse.
      if (memory !== undefined) this.runtime.memories.give(memory, maxPages);
      memory = undefined;
    };
    try {
      if (this.memoryMinPages * WASM_PAGE > memoryLimitBytes) throw new MemoryLimitError(memoryLimitBytes);
      const spare = this.takeSpare(maxPages) ?? this.prepare(maxPages);
      memory = spare.memory;
      this.refillSoon(maxPages);
      spare.bind(process);
      // After bind: the allocator's first call asks the clock (dlmalloc seeds itself).
      const dataPtr = spare.exports.airlock_alloc(this.asyncifyBytes);
      if (dataPtr === 0) throw new MemoryLimitError(memoryLimitBytes);
      spare.runner.attach(spare.exports, memory, dataPtr, this.asyncifyBytes);
      await spare.runner.run(() => spare.exports._start(), conclude).catch(() => undefined);
    } catch (error) {
      conclude(error);
    }
  }

  /** A fresh instance with its memory, not yet any process's (it makes no call until then). */
  private prepare(maxPages: number): Spare {
    const memory = this.runtime.memories.take(this.memoryMinPages, maxPages);
    try {
      const { imports, bind, runner } = this.runtime.imports(memory);
      const exports = new WebAssembly.Instance(this.module, imports).exports as unknown as ProgramExports;
      return { memory, maxPages, runner, exports, bind };
    } catch (error) {
      this.runtime.memories.give(memory, maxPages);
      throw error;
    }
  }

  private takeSpare(maxPages: number): Spare | undefined {
    const spare = this.spares.pop();
    if (spare === undefined || spare.maxPages === maxPages) return spare;
    this.runtime.memories.give(spare.memory, spare.maxPages);
    return undefined;
  }

  /** Makes spares, one per macrotask, so that host messages and other work go first. */
  private refillSoon(maxPages: number): void {
    if (this.refilling) return;
    this.refilling = true;
    const next = (): void => {
      if (this.spares.length >= SPARES) {
        this.refilling = false;
        return;
      }
      try {
        this.spares.push(this.prepare(maxPages));
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
