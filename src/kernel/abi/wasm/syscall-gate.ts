// What happens around every syscall of an asyncified wasm process: the kill and deadline
// checks, a turn for the host when the thread has been busy too long, the mapping of
// KernelErrors to errnos, and running a syscall core call that has to wait (drive()) by
// suspending the process's stack. Kills (ProcessExit/ProcessKilled) are not errnos: they
// propagate out through the wasm stack and end the process.
//
// A gate is made with its instance, which may be made before the process that will run it
// exists (abi/wasm/wasm-program.ts): bind() gives it that process's syscalls.

import { errnoOf } from '../../errno.js';
import type { Blocker, Waiting } from '../../fd/blocker.js';
import type { Process } from '../../proc/process.js';
import type { Scheduler } from '../../proc/scheduler.js';
import type { Syscalls } from '../../sys/syscalls.js';
import { Suspension, mapResult, type AsyncifyRunner, type SyscallResult } from './asyncify.js';

// Import signatures vary; the gate only passes arguments through.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyImport = (...args: any[]) => SyscallResult;

/**
 * How the gate's imports suspend: an asyncify runner (the program's stack unwinds), or a
 * foreign program's call channel, which hands the Suspension to its serving loop
 * (abi/foreign/foreign-program.ts).
 */
export type SuspendingRunner = Pick<AsyncifyRunner, 'wrap' | 'canSuspend'>;

export class SyscallGate {
  private bound: Syscalls | undefined;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly runner: SuspendingRunner,
  ) {}

  /** Makes this instance's imports act for the process `sys` belongs to. */
  bind(sys: Syscalls): void {
    this.bound = sys;
  }

  /** Forgets the process (its instance has ended; the imports will serve another one). */
  unbind(): void {
    this.bound = undefined;
  }

  /** The syscall core of the process the imports act for. */
  get sys(): Syscalls {
    if (this.bound === undefined) throw new Error('a system call was made before the instance became a process');
    return this.bound;
  }

  private get process(): Process {
    return this.sys.process;
  }

  /** Wraps a syscall implementation for the import object. */
  wrap<F extends AnyImport>(fn: F): (...args: Parameters<F>) => number {
    return this.runner.wrap((...args: Parameters<F>): SyscallResult => {
      const at = performance.now();
      this.scheduler.checkAlive(this.process, at);
      if (this.runner.canSuspend && this.scheduler.shouldYield(at)) {
        const turn = this.scheduler.yieldTurn();
        return new Suspension(
          (continuation) => this.scheduler.whenSettled(turn, continuation),
          () => {
            this.scheduler.checkAlive(this.process);
            return invoke(fn, args);
          },
        );
      }
      return invoke(fn, args);
    });
  }

  /**
   * Runs a core call that may wait: each wait suspends the process (parked in the
   * scheduler) and resumes the call with the wait's outcome. `finish` turns the call's
   * value into the syscall's return (usually errno 0).
   */
  drive<T>(steps: Waiting<T>, finish: (value: T) => number): SyscallResult {
    const advance = (step: IteratorResult<Blocker, T>): SyscallResult => {
      if (step.done === true) return finish(step.value);
      const blocker = step.value;
      return new Suspension(
        (continuation) => this.scheduler.park(this.process, blocker, continuation),
        () => advance(blocker.failure === undefined ? steps.next() : steps.throw(blocker.failure)),
      );
    };
    return advance(steps.next());
  }
}

const unchanged = (value: number): number => value;

/** Calls `fn`; a KernelError it throws, now or when it resumes, becomes its errno. */
function invoke(fn: AnyImport, args: unknown[]): SyscallResult {
  try {
    const result = fn(...args);
    // Most calls return at once: no mapping (and no closure) for those.
    return typeof result === 'number' ? result : mapResult(result, unchanged, errnoOf);
  } catch (error) {
    return errnoOf(error);
  }
}
