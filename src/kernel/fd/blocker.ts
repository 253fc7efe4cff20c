// A wait a process is in: for data in a pipe, for a child, for a timer or for the host.
// The scheduler can end it early (EDEADLK, the run's deadline, a signal), so every wait
// is an object it can see and reject, not a bare promise. A call that may wait is written
// once as a generator of such waits (Waiting<T>); sys/waiting.ts has the ways to run one.

import { KernelError } from '../errno.js';

/**
 * `internal` waits can only be satisfied by another process of the sandbox (pipes,
 * children); when every live process is in one, nothing can ever wake them: a deadlock.
 * `external` waits are satisfied from outside (timers, the host, the terminal).
 */
export type WaitKind = 'internal' | 'external';

export class Blocker {
  settled = false;
  /** Why the wait failed (EDEADLK, a kill), once it has. */
  failure: KernelError | Error | undefined;
  private promiseValue: Promise<void> | undefined;
  private readonly cleanups: Array<() => void> = [];

  constructor(
    readonly kind: WaitKind,
    readonly reason: string,
  ) {}

  /**
   * Settles with the wait. Made on first use only: a wait that is resumed synchronously
   * (Scheduler.park) never makes one, so its failure is not an unhandled rejection.
   */
  get promise(): Promise<void> {
    this.promiseValue ??= new Promise<void>((resolve, reject) => {
      this.onSettle(() => (this.failure === undefined ? resolve() : reject(this.failure)));
    });
    return this.promiseValue;
  }

  /**
   * Runs `cleanup` when the wait ends either way (remove from queues, clear timers); at
   * once if it has already ended.
   */
  onSettle(cleanup: () => void): void {
    if (this.settled) cleanup();
    else this.cleanups.push(cleanup);
  }

  wake(): void {
    if (this.settled) return;
    this.settled = true;
    this.runCleanups();
  }

  fail(error: KernelError | Error): void {
    if (this.settled) return;
    this.settled = true;
    this.failure = error;
    this.runCleanups();
  }

  /** After the wait: throws its failure, if it failed. */
  check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  private runCleanups(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }
}

/** The waits for one thing (data in a pipe, a child's end, an answer from the host). */
export class WaitQueue {
  private readonly waits: Blocker[] = [];

  constructor(
    private readonly kind: WaitKind,
    private readonly reason: string,
  ) {}

  get size(): number {
    return this.waits.length;
  }

  /** A new wait in this queue (of `kind`, default the queue's); it leaves when it ends. */
  wait(kind: WaitKind = this.kind): Blocker {
    const blocker = new Blocker(kind, this.reason);
    this.waits.push(blocker);
    blocker.onSettle(() => {
      const index = this.waits.indexOf(blocker);
      if (index >= 0) this.waits.splice(index, 1);
    });
    return blocker;
  }

  /** Ends every wait in the queue: what they waited for may be there (they retry). */
  wakeAll(): void {
    for (const blocker of this.waits.slice()) blocker.wake();
  }
}

/** An operation either completes now with a value, or says what to wait for and is retried. */
export type MaybeBlocked<T> = T | Blocker;

export function isBlocked<T>(value: MaybeBlocked<T>): value is Blocker {
  return value instanceof Blocker;
}

/** A call that may wait: yields each wait, gets the wait's failure thrown into it. */
export type Waiting<T> = Generator<Blocker, T, void>;

/** Retries `attempt` until it does not have to wait (reads, writes, waits for children). */
export function* retry<T>(attempt: () => MaybeBlocked<T>): Waiting<T> {
  for (;;) {
    const result = attempt();
    if (!isBlocked(result)) return result;
    yield result;
  }
}

/** A waiting call that is over before it starts. */
// eslint-disable-next-line require-yield
export function* done<T>(value: T): Waiting<T> {
  return value;
}
