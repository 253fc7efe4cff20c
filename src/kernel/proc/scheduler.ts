// The cooperative scheduler. All processes of a sandbox share one thread; a process runs
// until a syscall has to wait, then the event loop runs whoever is ready. This module
// keeps the bookkeeping that needs a global view:
//
// - deadlock: when every live process waits on something only another process could
//   provide, the most recent wait ends with EDEADLK instead of hanging forever;
// - the run's deadline: every syscall checks it, and a timer ends the waits still pending
//   when it passes (exit 124);
// - fairness with the host: a long stretch of work without a macrotask turn yields one, so
//   host messages (cancel, terminal input) are not starved;
// - the ready queue: a parked wait's continuation (an asyncified process resuming) runs
//   from the queue once its wait ends. Normally a microtask drains it; a process that
//   cannot suspend (inline Python, docs/architecture.md §2 mode 3) drains it in place with
//   driveUntil(), so the others run while it is blocked inside a synchronous call.

import { Errno, KernelError } from '../errno.js';
import { Blocker } from '../fd/blocker.js';
import { ProcessKilled, DEADLINE_STATUS } from './exit.js';

/** What the scheduler needs to know about a process. */
export interface Schedulable {
  readonly pid: number;
  blocker: Blocker | undefined;
  /** Set when the process should end at its next chance (signal, deadline). */
  pendingKill: ProcessKilled | undefined;
  /** Not ended by the deadline (the session shell, which ends the run itself). */
  deadlineExempt: boolean;
  /** Milliseconds spent in waits that have ended (for CPU time: the rest of its life). */
  waitedMs?: number;
  /** When the wait it is in began. */
  waitingSince?: number;
}

const YIELD_EVERY_MS = 25;

/** A timer wait the scheduler owns, so that driveUntil() can honour it without the event loop. */
interface TimerWait {
  dueAt: number;
  blocker: Blocker;
  onDue: (() => void) | undefined;
}

export class Scheduler {
  private readonly live = new Set<Schedulable>();
  private readonly internalWaits: Schedulable[] = [];
  private externalWaits = 0;
  private deadlockCheckQueued = false;
  /** When the event loop last had a turn that the scheduler saw (see shouldYield). */
  private lastMacrotask = now();
  /** A macrotask is queued that records the next turn of the event loop. */
  private turnWatched = false;
  private deadlineAt: number | undefined;
  /** The deadline's timer and when it is due (possibly before the deadline: see setDeadline). */
  private deadlineTimer: { dueAt: number; handle: ReturnType<typeof setTimeout> } | undefined;
  private readonly ready: Array<() => void> = [];
  private drainQueued = false;
  private readonly timers = new Set<TimerWait>();
  private readonly yields = new Set<Blocker>();
  /** Depth of driveUntil() calls on the stack: while > 0 the host cannot get a turn. */
  private driving = 0;

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
    this.enterWait(process, blocker);
    return blocker.promise;
  }

  /**
   * Puts `process` in `blocker`'s wait and runs `continuation` from the ready queue once
   * the wait has ended (either way: the continuation checks `blocker.failure`). Unlike
   * wait(), nothing here goes through a promise, so driveUntil() can run the continuation
   * synchronously.
   */
  park(process: Schedulable, blocker: Blocker, continuation: () => void): void {
    this.enterWait(process, blocker);
    blocker.onSettle(() => this.schedule(continuation));
  }

  /** Bookkeeping of a wait: the process's blocker, the deadlock counts. */
  private enterWait(process: Schedulable, blocker: Blocker): void {
    if (process.pendingKill !== undefined) {
      blocker.fail(process.pendingKill);
      return;
    }
    process.blocker = blocker;
    process.waitingSince = now();
    if (blocker.kind === 'internal') this.internalWaits.push(process);
    else this.externalWaits += 1;
    blocker.onSettle(() => {
      process.blocker = undefined;
      process.waitedMs = (process.waitedMs ?? 0) + (now() - (process.waitingSince ?? now()));
      process.waitingSince = undefined;
      if (blocker.kind === 'internal') {
        const index = this.internalWaits.indexOf(process);
        if (index >= 0) this.internalWaits.splice(index, 1);
      } else {
        this.externalWaits -= 1;
      }
    });
    if (blocker.kind === 'internal') this.queueDeadlockCheck();
  }

  /**
   * Runs `continuation` from the ready queue: soon (a microtask), or within a driveUntil()
   * on the stack. Continuations must not throw (a runner ends every failure in a status).
   */
  schedule(continuation: () => void): void {
    this.ready.push(continuation);
    this.scheduleDrain();
  }

  private scheduleDrain(): void {
    if (this.drainQueued || this.driving > 0) return;
    this.drainQueued = true;
    queueMicrotask(() => {
      this.drainQueued = false;
      this.drain();
    });
  }

  private drain(): void {
    for (let next = this.ready.shift(); next !== undefined; next = this.ready.shift()) next();
  }

  /**
   * For a process that cannot suspend (inline Python): waits for `blocker` on this very
   * stack, running the other processes' continuations meanwhile (timers and the deadline
   * too, by the clock: their event-loop callbacks cannot fire until this returns). When
   * nothing else can run, the wait fails with EDEADLK: an internal wait is a deadlock, and
   * an external one (terminal input, the network, the next run) could only be satisfied by
   * the host, which gets no turn before this returns. Throws the wait's failure.
   */
  driveUntil(process: Schedulable, blocker: Blocker): void {
    this.enterWait(process, blocker);
    this.driving += 1;
    try {
      while (!blocker.settled) {
        const next = this.ready.shift();
        if (next !== undefined) next();
        else if (this.deadlineAt !== undefined && now() >= this.deadlineAt) this.expire();
        else if (this.yields.size > 0) this.wakeYields();
        else if (this.timers.size > 0) this.wakeEarliestTimer();
        else blocker.fail(new KernelError(Errno.DEADLK, cannotWait(blocker)));
      }
    } finally {
      this.driving -= 1;
      // Continuations queued by the last wake are drained as usual.
      if (this.ready.length > 0) this.scheduleDrain();
    }
    blocker.check();
  }

  /**
   * Wakes `blocker` after `ms` (`onDue` runs first). Timer waits go through here so that
   * driveUntil() can wake them by the clock.
   */
  wakeAfter(blocker: Blocker, ms: number, onDue?: () => void): void {
    const timer: TimerWait = { dueAt: now() + ms, blocker, onDue };
    this.timers.add(timer);
    const handle = setTimeout(() => {
      timer.onDue?.();
      blocker.wake();
    }, ms);
    blocker.onSettle(() => {
      clearTimeout(handle);
      this.timers.delete(timer);
    });
  }

  private wakeEarliestTimer(): void {
    let earliest: TimerWait | undefined;
    for (const timer of this.timers) if (earliest === undefined || timer.dueAt < earliest.dueAt) earliest = timer;
    if (earliest === undefined) return;
    // Nothing else can run and there is no event loop to sleep in: wait by the clock, but
    // not past the deadline (the loop ends the waits then).
    const until = Math.min(earliest.dueAt, this.deadlineAt ?? Infinity);
    while (now() < until) {
      // spin
    }
    if (now() >= earliest.dueAt) {
      earliest.onDue?.();
      earliest.blocker.wake();
    }
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

  /**
   * The timer is kept from run to run, not cleared and armed again: runs mostly have the
   * same timeoutMs, so the timer armed for one run is due before the next one's deadline,
   * fires early and arms itself for the deadline then in force (measured: arming a timer
   * per run was ~4% of a small command's time in the kernel). Unref'd while no run has a
   * deadline, so it keeps no event loop alive.
   */
  setDeadline(deadlineAt: number | undefined): void {
    this.deadlineAt = deadlineAt;
    const timer = this.deadlineTimer;
    if (deadlineAt === undefined) {
      unrefTimer(timer?.handle);
      return;
    }
    if (timer !== undefined && timer.dueAt <= deadlineAt) {
      refTimer(timer.handle);
      return;
    }
    if (timer !== undefined) clearTimeout(timer.handle);
    this.armDeadline(deadlineAt);
  }

  private armDeadline(at: number): void {
    this.deadlineTimer = { dueAt: at, handle: setTimeout(() => this.deadlineDue(), Math.max(0, at - now())) };
  }

  private deadlineDue(): void {
    this.deadlineTimer = undefined;
    const at = this.deadlineAt;
    if (at === undefined) return;
    if (now() >= at) this.expire();
    else this.armDeadline(at);
  }

  get deadline(): number | undefined {
    return this.deadlineAt;
  }

  /** Milliseconds until the deadline, or undefined when there is none. */
  remaining(): number | undefined {
    return this.deadlineAt === undefined ? undefined : Math.max(0, this.deadlineAt - now());
  }

  /**
   * What every system call checks first: a process with a pending kill, or past the
   * deadline, ends now (the kill unwinds out of the call).
   */
  checkAlive(process: Schedulable, at?: number): void {
    if (process.pendingKill !== undefined) throw process.pendingKill;
    if (this.pastDeadline(process, at)) throw new ProcessKilled(DEADLINE_STATUS, 'deadline');
  }

  /** Whether `process` must end now because the deadline passed (`at`: the current time). */
  pastDeadline(process: Schedulable, at = now()): boolean {
    return this.deadlineAt !== undefined && !process.deadlineExempt && at >= this.deadlineAt;
  }

  private expire(): void {
    for (const process of this.live) {
      if (process.deadlineExempt) continue;
      const kill = new ProcessKilled(DEADLINE_STATUS, 'deadline');
      process.pendingKill = kill;
      process.blocker?.fail(kill);
    }
  }

  // ---- fairness with the host ------------------------------------------------------------

  /**
   * Whether the thread has run long enough without giving the host a turn. Never inside
   * driveUntil(): the host cannot have a turn before the driving call returns anyway.
   * Every turn counts, not only the ones yieldTurn() made: a queued macrotask records the
   * next one, and a check with none queued is the first since such a turn (the thread went
   * back to the event loop in between). Otherwise a sandbox that answers runs one after
   * another (each a host message, so each its own turn) would yield in one run every 25 ms
   * for nothing: an extra event-loop turn, behind any spare instances being restored, in
   * ~2% of small commands.
   */
  shouldYield(at = now()): boolean {
    if (this.driving > 0) return false;
    if (!this.turnWatched) {
      this.lastMacrotask = at;
      this.turnWatched = true;
      void macrotask().then(() => {
        this.turnWatched = false;
        this.lastMacrotask = now();
      });
    }
    return at - this.lastMacrotask > YIELD_EVERY_MS;
  }

  /**
   * A turn for the host as a wait: woken after a macrotask, or at once by driveUntil().
   * Not a process's wait (a yielding process is runnable, not blocked).
   */
  yieldTurn(): Blocker {
    const blocker = new Blocker('external', 'yield');
    this.yields.add(blocker);
    blocker.onSettle(() => this.yields.delete(blocker));
    void macrotask().then(() => {
      this.lastMacrotask = now();
      blocker.wake();
    });
    return blocker;
  }

  private wakeYields(): void {
    for (const blocker of [...this.yields]) blocker.wake();
  }

  /** Runs `continuation` from the ready queue once `blocker` has ended (no process wait). */
  whenSettled(blocker: Blocker, continuation: () => void): void {
    blocker.onSettle(() => this.schedule(continuation));
  }
}

/** The reason a driven wait cannot end. */
function cannotWait(blocker: Blocker): string {
  if (blocker.kind === 'internal') return 'every process is waiting: deadlock';
  return `cannot wait for ${blocker.reason}: nothing in the sandbox can provide it while a synchronous process waits`;
}

/** Node's timers can stop holding the event loop; a browser's (numbers) need not. */
type NodeTimer = { ref?: () => void; unref?: () => void };

function refTimer(handle: ReturnType<typeof setTimeout> | undefined): void {
  if (typeof handle === 'object') (handle as NodeTimer).ref?.();
}

function unrefTimer(handle: ReturnType<typeof setTimeout> | undefined): void {
  if (typeof handle === 'object') (handle as NodeTimer).unref?.();
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
