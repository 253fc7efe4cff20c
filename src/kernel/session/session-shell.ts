// The session shell: one long-lived `bash --airlock-session` per sandbox, which receives
// every run() as a request and answers with its exit status and serialized state
// (docs/abi.md, "The session shell"). The state is the checkpoint the host restores after
// a hard kill, and what fork() starts from.
//
// The shell is not killed by the deadline or by Ctrl-C: its children are, and
// `session_poll` tells it to stop. If it dies anyway (a crash), the next run starts a new
// one from the last state it reported.

import { Errno, fail } from '../errno.js';
import { Blocker, retry, type Waiting } from '../fd/blocker.js';
import type { Process } from '../proc/process.js';
import type { Scheduler } from '../proc/scheduler.js';

export interface SessionRunRequest {
  runId: number;
  command: string;
  cwd: string | null;
  env: Record<string, string>;
}

export interface SessionRunResult {
  status: number;
  /** Set when the shell died during the run instead of reporting its end. */
  crashed: boolean;
}

interface InFlight {
  request: Uint8Array;
  delivered: boolean;
  cancelled: boolean;
  finish: (result: SessionRunResult) => void;
}

export class SessionShell {
  private process: Process | undefined;
  private state: Uint8Array;
  private inFlight: InFlight | undefined;
  private nextWaiter: Blocker | undefined;
  private lastCwd: string | undefined;

  constructor(
    initialState: Uint8Array,
    private readonly scheduler: Scheduler,
    /** Starts the shell process with `state` as its spawn blob. */
    private readonly spawnShell: (state: Uint8Array) => Process,
  ) {
    this.state = initialState;
  }

  /** The state the shell reported after its last completed run. */
  get lastState(): Uint8Array {
    return this.state;
  }

  /** Whether `process` is the session shell (only it may use the session imports). */
  owns(process: Process): boolean {
    return this.process === process;
  }

  get pgid(): number | undefined {
    return this.process?.pgid;
  }

  /**
   * The shell's working directory after its last run: the kernel's record, which the
   * shell's `cd` keeps current (undefined after a reset, until the next run ends).
   */
  get cwd(): string | undefined {
    return this.lastCwd;
  }

  private ensureStarted(): Process {
    if (this.process === undefined || this.process.state === 'exited') {
      const process = this.spawnShell(this.state);
      process.deadlineExempt = true;
      process.signalExempt = true;
      this.process = process;
      void process.exited().then(() => this.onShellExit(process));
    }
    return this.process;
  }

  private onShellExit(process: Process): void {
    if (this.process !== process) return;
    this.process = undefined;
    const inFlight = this.inFlight;
    if (inFlight !== undefined) {
      this.inFlight = undefined;
      inFlight.finish({ status: process.status ?? 1, crashed: true });
    }
  }

  run(request: SessionRunRequest): Promise<SessionRunResult> {
    if (this.inFlight !== undefined) throw new Error('a run is already in progress');
    this.ensureStarted();
    return new Promise<SessionRunResult>((resolve) => {
      this.inFlight = {
        request: new TextEncoder().encode(JSON.stringify(request)),
        delivered: false,
        cancelled: false,
        finish: resolve,
      };
      this.nextWaiter?.wake();
    });
  }

  /** Replaces the state (restore of a snapshot): the current shell ends, the next run starts from `state`. */
  reset(state: Uint8Array, terminate: (process: Process) => void): void {
    this.state = state;
    this.lastCwd = undefined;
    const process = this.process;
    this.process = undefined;
    if (process !== undefined && process.state !== 'exited') terminate(process);
  }

  cancel(): void {
    if (this.inFlight !== undefined) this.inFlight.cancelled = true;
  }

  // ---- the session calls (marshalled by abi/airlock.ts; only the shell may make them) ----

  private guard(process: Process): void {
    if (!this.owns(process)) fail(Errno.NOSYS, 'only the session shell may make session calls');
  }

  /** session_next: waits for the next run; its request's length. */
  next(process: Process): Waiting<number> {
    this.guard(process);
    return retry(() => {
      const inFlight = this.inFlight;
      if (inFlight !== undefined && !inFlight.delivered) return inFlight.request.length;
      const blocker = new Blocker('external', 'next run');
      this.nextWaiter = blocker;
      blocker.onSettle(() => {
        if (this.nextWaiter === blocker) this.nextWaiter = undefined;
      });
      return blocker;
    });
  }

  /** session_read: the request of the run in flight (JSON, docs/abi.md). */
  read(process: Process): Uint8Array {
    this.guard(process);
    const inFlight = this.inFlight;
    if (inFlight === undefined) fail(Errno.INVAL, 'no run in flight');
    inFlight.delivered = true;
    return inFlight.request;
  }

  /** session_poll: INTR when the host cancelled the run, TIMEDOUT past its deadline, else 0. */
  poll(process: Process): number {
    this.guard(process);
    if (this.inFlight?.cancelled) return Errno.INTR;
    const remaining = this.scheduler.remaining();
    if (remaining !== undefined && remaining <= 0) return Errno.TIMEDOUT;
    return Errno.SUCCESS;
  }

  /** session_done: the run is over with `status`; `state` is the shell's state after it. */
  done(process: Process, status: number, state: Uint8Array): void {
    this.guard(process);
    const inFlight = this.inFlight;
    if (inFlight === undefined) fail(Errno.INVAL, 'no run in flight');
    this.state = state;
    this.lastCwd = process.cwd;
    this.inFlight = undefined;
    inFlight.finish({ status: status & 0xff, crashed: false });
  }
}
