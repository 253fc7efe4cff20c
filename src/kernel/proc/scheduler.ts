// The cooperative scheduler. All processes of a sandbox share one thread; a process runs
// until a syscall has to wait, then the event loop runs whoever is ready. This module
// keeps the bookkeeping that needs a global view:
//
// - deadlock: when every live process waits on something only another process could
//   provide, the most recent wait ends with EDEADLK instead of hanging forever;
// - the run's deadline: every syscall checks it, and a timer ends the waits still pending
//   when it passes (exit 124);
// - fairness with the host: a long stretch of work without a macrotask turn yields one, so
//   host messages (cancel, terminal input) are not starved.

import { Errno, KernelError } from '../errno.js';
import type { Blocker } from './blocker.js';
import { ProcessKilled, DEADLINE_STATUS } from './exit.js';

/** What the scheduler needs to know about a process. */
export interface Schedulable {
  readonly pid: number;
  blocker: Blocker | undefined;
  /** Set when the process should end at its next chance (signal, deadline). */
  pendingKill: ProcessKilled | undefined;
  /** Not ended by the deadline (the session shell, which ends the run itself). */
  deadlineExempt: boolean;
}

const YIELD_EVERY_MS = 25;

export class Scheduler {
  private readonly live = new Set<Schedulable>();
  private readonly internalWaits: Schedulable[] = [];
  private externalWaits = 0;
  private deadlockCheckQueued = false;
  private lastMacrotask = now();
  private deadlineAt: number | undefined;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;

  add(process: Schedulable): void {
    this.live.add(process);
  }

  remove(process: Schedulable): void {
    this.live.delete(process);
    this.queueDeadlockCheck();
  }

  get liveCount(): number {
    return this.live.size;
  }

  /** Puts `process` in `blocker`'s wait; the promise settles when the wait ends. */
  wait(process: Schedulable, blocker: Blocker): Promise<void> {
    if (process.pendingKill !== undefined) {
      blocker.fail(process.pendingKill);
      return blocker.promise;
    }
    process.blocker = blocker;
    if (blocker.kind === 'internal') this.internalWaits.push(process);
    else this.externalWaits += 1;
    blocker.onSettle(() => {
      process.blocker = undefined;
      if (blocker.kind === 'internal') {
        const index = this.internalWaits.indexOf(process);
        if (index >= 0) this.internalWaits.splice(index, 1);
      } else {
        this.externalWaits -= 1;
      }
    });
    if (blocker.kind === 'internal') this.queueDeadlockCheck();
    return blocker.promise;
  }

  private queueDeadlockCheck(): void {
    if (this.deadlockCheckQueued) return;
    this.deadlockCheckQueued = true;
    // After the current microtasks: a wake that is already queued is not a deadlock.
    macrotask().then(() => {
      this.deadlockCheckQueued = false;
      this.checkDeadlock();
    });
  }

  private checkDeadlock(): void {
    if (this.internalWaits.length === 0 || this.externalWaits > 0) return;
    for (const process of this.live) if (process.blocker === undefined) return;
    const victim = this.internalWaits[this.internalWaits.length - 1] as Schedulable;
    victim.blocker?.fail(new KernelError(Errno.DEADLK, 'every process is waiting: deadlock'));
  }

  // ---- deadline ------------------------------------------------------------------------

  setDeadline(deadlineAt: number | undefined): void {
    this.deadlineAt = deadlineAt;
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    if (deadlineAt === undefined) return;
    this.deadlineTimer = setTimeout(() => this.expire(), Math.max(0, deadlineAt - now()));
  }

  get deadline(): number | undefined {
    return this.deadlineAt;
  }

  /** Milliseconds until the deadline, or undefined when there is none. */
  remaining(): number | undefined {
    return this.deadlineAt === undefined ? undefined : Math.max(0, this.deadlineAt - now());
  }

  /** Whether `process` must end now because the deadline passed (`at`: the current time). */
  pastDeadline(process: Schedulable, at = now()): boolean {
    return this.deadlineAt !== undefined && !process.deadlineExempt && at >= this.deadlineAt;
  }

  private expire(): void {
    this.deadlineTimer = undefined;
    for (const process of this.live) {
      if (process.deadlineExempt) continue;
      const kill = new ProcessKilled(DEADLINE_STATUS, 'deadline');
      process.pendingKill = kill;
      process.blocker?.fail(kill);
    }
  }

  // ---- fairness with the host ------------------------------------------------------------

  /** Whether the thread has run long enough without giving the host a turn. */
  shouldYield(at = now()): boolean {
    return at - this.lastMacrotask > YIELD_EVERY_MS;
  }

  /** Resolves after a macrotask, giving queued host messages their turn. */
  async yieldToHost(): Promise<void> {
    await macrotask();
    this.lastMacrotask = now();
  }
}

export function now(): number {
  return performance.now();
}

/** A promise that resolves in a later macrotask (setImmediate where available). */
export function macrotask(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(null);
    }
  });
}
