// Runs an asyncified wasm program so that any import may suspend it.
//
// An import that must wait returns a Suspension (a kernel wait). The runner
// then starts an unwind (Binaryen asyncify saves the wasm call stack into a data buffer and
// returns to us), lets other processes run, and rewinds: it calls the export again, which
// restores the stack up to the same import call, which now returns the awaited value.
//
// A Suspension resumes from the scheduler's ready queue, not through an `await`: that is
// what lets a process that cannot suspend (inline Python) run this one synchronously while
// it waits (Scheduler.driveUntil). Each wait resumes exactly once, through the one path.
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

/**
 * A syscall that has to wait for a kernel event. `park` registers the wait and calls its
 * continuation once it has ended (from the scheduler's ready queue); `resume` then gives
 * the syscall's result — which may be another wait — or throws to end the process.
 */
export class Suspension {
  constructor(
    readonly park: (continuation: () => void) => void,
    readonly resume: () => SyscallResult,
  ) {}
}

/** A syscall result: a value now, or a wait for one (the process suspends meanwhile). */
export type SyscallResult = number | Suspension;

/** `result` with `map` applied to its value and `recover` to what its resumption throws. */
export function mapResult(result: SyscallResult, map: (value: number) => SyscallResult, recover: (error: unknown) => SyscallResult): SyscallResult {
  if (typeof result === 'number') return map(result);
  return new Suspension(result.park, () => {
    let next: SyscallResult;
    try {
      next = result.resume();
    } catch (error) {
      return recover(error);
    }
    return mapResult(next, map, recover);
  });
}

/** A program suspended with a call stack deeper than its data buffer holds: it cannot resume. */
export class SuspendedStackOverflow extends Error {
  constructor(readonly bufferBytes: number) {
    super(`call stack too deep to suspend: it outgrew the ${bufferBytes}-byte buffer that holds a waiting program's stack`);
    this.name = 'SuspendedStackOverflow';
  }
}

export class AsyncifyRunner {
  private exports: AsyncifyExports | undefined;
  private dataPtr = 0;
  private dataBytes = 0;
  private pending: Suspension | undefined;
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

  /** Wraps an import so that returning a Suspension suspends the program. */
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
    // A runner serves one instance after another (the imports it wraps are reused with
    // their memory): nothing of the last one's suspension is left.
    this.pending = undefined;
    this.rewinding = false;
    this.resumeValue = 0;
    this.exports = exports;
    this.dataPtr = dataPtr;
    this.dataBytes = size;
    const view = new DataView(memory.buffer);
    view.setUint32(dataPtr, dataPtr + 8, true);
    view.setUint32(dataPtr + 4, dataPtr + size, true);
  }

  /**
   * Calls `entry` until it returns without being suspended; the promise rejects with what
   * it throws. `onEnd` is called first, synchronously where the program ends (with the
   * exception, or undefined), so that a process's exit takes effect even while a driving
   * caller is still on the stack.
   */
  run(entry: () => unknown, onEnd?: (error: unknown) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.running = true;
      const end = (error: unknown, failed: boolean): void => {
        this.running = false;
        try {
          onEnd?.(error);
        } finally {
          if (failed) reject(error);
          else resolve();
        }
      };
      this.enter(entry, end);
    });
  }

  /** Runs the program from its entry (or a rewind) to its end or its next suspension. */
  private enter(entry: () => unknown, end: (error: unknown, failed: boolean) => void): void {
    const exports = this.exports as AsyncifyExports;
    try {
      entry();
    } catch (error) {
      end(error, true);
      return;
    }
    if (exports.asyncify_get_state() !== STATE_UNWINDING) {
      if (this.pending !== undefined) end(new Error('asyncify: an import suspended outside an unwind'), true);
      else end(undefined, false);
      return;
    }
    try {
      // Traps when the saved stack did not fit in the data buffer.
      exports.asyncify_stop_unwind();
    } catch {
      this.pending = undefined;
      end(new SuspendedStackOverflow(this.dataBytes), true);
      return;
    }
    const pending = this.pending as Suspension;
    this.pending = undefined;
    this.resumeWith(pending, entry, end);
  }

  /** Once the suspended import's result is a number, rewinds into the program with it. */
  private resumeWith(result: SyscallResult, entry: () => unknown, end: (error: unknown, failed: boolean) => void): void {
    if (typeof result === 'number') {
      this.resumeValue = result;
      this.rewinding = true;
      (this.exports as AsyncifyExports).asyncify_start_rewind(this.dataPtr);
      this.enter(entry, end);
    } else {
      result.park(() => {
        let next: SyscallResult;
        try {
          next = result.resume();
        } catch (error) {
          end(error, true);
          return;
        }
        this.resumeWith(next, entry, end);
      });
    }
  }

  get state(): number {
    return this.exports?.asyncify_get_state() ?? STATE_NORMAL;
  }
}
