// A wait a process is in: for data in a pipe, for a child, for a timer or for the host.
// The scheduler can end it early (EDEADLK, the run's deadline, a signal), so every wait
// is an object it can see and reject, not a bare promise.

import { KernelError } from '../errno.js';

/**
 * `internal` waits can only be satisfied by another process of the sandbox (pipes,
 * children); when every live process is in one, nothing can ever wake them: a deadlock.
 * `external` waits are satisfied from outside (timers, the host, the terminal).
 */
export type WaitKind = 'internal' | 'external';

export class Blocker {
  settled = false;
  readonly promise: Promise<void>;
  private resolveFn!: () => void;
  private rejectFn!: (error: unknown) => void;
  private readonly cleanups: Array<() => void> = [];

  constructor(
    readonly kind: WaitKind,
    readonly reason: string,
  ) {
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolveFn = resolve;
      this.rejectFn = reject;
    });
  }

  /** Runs `cleanup` when the wait ends either way (remove from queues, clear timers). */
  onSettle(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }

  wake(): void {
    if (this.settled) return;
    this.settled = true;
    this.runCleanups();
    this.resolveFn();
  }

  fail(error: KernelError | Error): void {
    if (this.settled) return;
    this.settled = true;
    this.runCleanups();
    this.rejectFn(error);
  }

  private runCleanups(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }
}

/** An operation either completes now with a value, or says what to wait for and is retried. */
export type MaybeBlocked<T> = T | Blocker;

export function isBlocked<T>(value: MaybeBlocked<T>): value is Blocker {
  return value instanceof Blocker;
}
