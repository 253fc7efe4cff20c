// What happens around every syscall: the kill and deadline checks, a turn for the host
// when the thread has been busy too long, and the mapping of KernelErrors to errnos.
// Kills (ProcessExit/ProcessKilled) are not errnos: they propagate out through the wasm
// stack and end the process.

import { errnoOf } from '../errno.js';
import { isBlocked, type Blocker, type MaybeBlocked } from '../proc/blocker.js';
import { DEADLINE_STATUS, ProcessKilled } from '../proc/exit.js';
import type { Process } from '../proc/process.js';
import type { Scheduler } from '../proc/scheduler.js';
import { Suspension, mapResult, type AsyncifyRunner, type SyscallResult } from './asyncify.js';

// Import signatures vary; the gate only passes arguments through.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyImport = (...args: any[]) => SyscallResult;

export class SyscallGate {
  constructor(
    private readonly process: Process,
    private readonly scheduler: Scheduler,
    private readonly runner: AsyncifyRunner,
  ) {}

  /** Wraps a syscall implementation for the import object. */
  wrap<F extends AnyImport>(fn: F): (...args: Parameters<F>) => number {
    return this.runner.wrap((...args: Parameters<F>): SyscallResult => {
      const at = performance.now();
      this.checkAlive(at);
      if (this.runner.canSuspend && this.scheduler.shouldYield(at)) {
        const turn = this.scheduler.yieldTurn();
        return new Suspension(
          (continuation) => this.scheduler.whenSettled(turn, continuation),
          () => {
            this.checkAlive();
            return invoke(fn, args);
          },
        );
      }
      return invoke(fn, args);
    });
  }

  private checkAlive(at = performance.now()): void {
    const process = this.process;
    if (process.pendingKill !== undefined) throw process.pendingKill;
    if (this.scheduler.pastDeadline(process, at)) throw new ProcessKilled(DEADLINE_STATUS, 'deadline');
  }

  /**
   * Runs an operation that may have to wait: waits in the scheduler, then retries.
   * `finish` turns the operation's value into the syscall's return (usually errno 0).
   */
  retrying<T>(operation: () => MaybeBlocked<T>, finish: (value: T) => number): SyscallResult {
    const attempt = (): SyscallResult => {
      const result = operation();
      if (!isBlocked(result)) return finish(result);
      return this.suspend(result, attempt);
    };
    return attempt();
  }

  /** Waits for `blocker` (parked in the scheduler), then continues with `then`. */
  suspend(blocker: Blocker, then: () => SyscallResult): Suspension {
    return new Suspension(
      (continuation) => this.scheduler.park(this.process, blocker, continuation),
      () => {
        blocker.check();
        return then();
      },
    );
  }
}

/** Calls `fn`; a KernelError it throws, now or when it resumes, becomes its errno. */
function invoke(fn: AnyImport, args: unknown[]): SyscallResult {
  try {
    return mapResult(fn(...args), (value) => value, errnoOf);
  } catch (error) {
    return errnoOf(error);
  }
}
