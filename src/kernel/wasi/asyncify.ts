// Runs an asyncified wasm program so that any import may suspend it.
//
// An import that must wait returns a Promise. The runner then starts an unwind (Binaryen
// asyncify saves the wasm call stack into a data buffer and returns to us), awaits the
// promise while other processes run, and rewinds: it calls the export again, which
// restores the stack up to the same import call, which now returns the awaited value.
//
// The data buffer comes from the program's own allocator (`airlock_alloc`): memory the
// runner grew itself would later be handed out by malloc and corrupt the saved stack. The
// buffer's cursor is left where the last rewind put it (back at its start).

export interface AsyncifyExports {
  asyncify_start_unwind(dataPtr: number): void;
  asyncify_stop_unwind(): void;
  asyncify_start_rewind(dataPtr: number): void;
  asyncify_stop_rewind(): void;
  asyncify_get_state(): number;
}

const STATE_NORMAL = 0;
const STATE_UNWINDING = 1;

/** A syscall result: a value now, or a promise of one (the process suspends meanwhile). */
export type SyscallResult = number | Promise<number>;

export class AsyncifyRunner {
  private exports: AsyncifyExports | undefined;
  private dataPtr = 0;
  private pending: Promise<number> | undefined;
  private rewinding = false;
  private resumeValue = 0;
  private running = false;

  /** Whether an import may suspend now (only under run(), not in calls made before it). */
  get canSuspend(): boolean {
    return this.running;
  }

  /** Whether the module was built with asyncify (checked before instantiation). */
  static supports(module: WebAssembly.Module): boolean {
    return WebAssembly.Module.exports(module).some((e) => e.name === 'asyncify_start_unwind');
  }

  /** Wraps an import so that returning a Promise suspends the program. */
  wrap<A extends number[]>(fn: (...args: A) => SyscallResult): (...args: A) => number {
    return (...args: A): number => {
      if (this.rewinding) {
        (this.exports as AsyncifyExports).asyncify_stop_rewind();
        this.rewinding = false;
        return this.resumeValue;
      }
      const result = fn(...args);
      if (typeof result === 'number') return result;
      if (!this.running) throw new Error('asyncify: an import tried to suspend outside run()');
      this.pending = result;
      (this.exports as AsyncifyExports).asyncify_start_unwind(this.dataPtr);
      return 0;
    };
  }

  /**
   * Attaches the instance and its data buffer: `[cursor, end]` header then the space
   * asyncify saves stacks into.
   */
  attach(exports: AsyncifyExports, memory: WebAssembly.Memory, dataPtr: number, size: number): void {
    this.exports = exports;
    this.dataPtr = dataPtr;
    const view = new DataView(memory.buffer);
    view.setUint32(dataPtr, dataPtr + 8, true);
    view.setUint32(dataPtr + 4, dataPtr + size, true);
  }

  /** Calls `entry` until it returns without being suspended. Exceptions propagate. */
  async run(entry: () => unknown): Promise<void> {
    const exports = this.exports as AsyncifyExports;
    this.running = true;
    try {
      await this.loop(exports, entry);
    } finally {
      this.running = false;
    }
  }

  private async loop(exports: AsyncifyExports, entry: () => unknown): Promise<void> {
    for (;;) {
      entry();
      if (exports.asyncify_get_state() !== STATE_UNWINDING) {
        if (this.pending !== undefined) throw new Error('asyncify: an import suspended outside an unwind');
        return;
      }
      exports.asyncify_stop_unwind();
      const pending = this.pending as Promise<number>;
      this.pending = undefined;
      this.resumeValue = await pending;
      this.rewinding = true;
      exports.asyncify_start_rewind(this.dataPtr);
    }
  }

  get state(): number {
    return this.exports?.asyncify_get_state() ?? STATE_NORMAL;
  }
}
