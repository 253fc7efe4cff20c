// The session shell: one long-lived `bash --airlock-session` per sandbox, which receives
// every run() as a request and answers with its exit status and serialized state
// (docs/abi.md, "The session shell"). The state is the checkpoint the host restores after
// a hard kill, and what fork() starts from.
//
// The shell is not killed by the deadline or by Ctrl-C: its children are, and
// `session_poll` tells it to stop. If it dies anyway (a crash), the next run starts a new
// one from the last state it reported.

import { Errno } from '../errno.js';
import { Blocker } from '../proc/blocker.js';
import type { Process } from '../proc/process.js';
import type { Scheduler } from '../proc/scheduler.js';
import type { SyscallResult } from '../wasi/asyncify.js';
import type { ProcessMemory } from '../wasi/process-memory.js';
import type { SyscallGate } from '../wasi/syscall-gate.js';

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
    const process = this.process;
    this.process = undefined;
    if (process !== undefined && process.state !== 'exited') terminate(process);
  }

  cancel(): void {
    if (this.inFlight !== undefined) this.inFlight.cancelled = true;
  }

  /** The `airlock` session imports for `process` (ENOSYS unless it is the session shell). */
  imports(process: Process, memory: ProcessMemory, gate: SyscallGate): Record<string, (...args: never[]) => SyscallResult> {
    const guard = (): boolean => this.owns(process);
    return {
      session_next: (lengthPtr: number): SyscallResult => {
        if (!guard()) return Errno.NOSYS;
        return gate.retrying(
          () => {
            const inFlight = this.inFlight;
            if (inFlight !== undefined && !inFlight.delivered) return inFlight;
            const blocker = new Blocker('external', 'next run');
            this.nextWaiter = blocker;
            blocker.onSettle(() => {
              if (this.nextWaiter === blocker) this.nextWaiter = undefined;
            });
            return blocker;
          },
          (inFlight) => {
            memory.setU32(lengthPtr, inFlight.request.length);
            return Errno.SUCCESS;
          },
        );
      },
      session_read: (bufPtr: number, length: number) => {
        if (!guard()) return Errno.NOSYS;
        const inFlight = this.inFlight;
        if (inFlight === undefined) return Errno.INVAL;
        memory.slice(bufPtr, Math.min(length, inFlight.request.length)).set(inFlight.request.subarray(0, length));
        inFlight.delivered = true;
        return Errno.SUCCESS;
      },
      session_poll: () => {
        if (!guard()) return Errno.NOSYS;
        if (this.inFlight?.cancelled) return Errno.INTR;
        const remaining = this.scheduler.remaining();
        if (remaining !== undefined && remaining <= 0) return Errno.TIMEDOUT;
        return Errno.SUCCESS;
      },
      session_done: (status: number, statePtr: number, stateLength: number) => {
        if (!guard()) return Errno.NOSYS;
        const inFlight = this.inFlight;
        if (inFlight === undefined) return Errno.INVAL;
        this.state = memory.slice(statePtr, stateLength).slice();
        this.inFlight = undefined;
        inFlight.finish({ status: status & 0xff, crashed: false });
        return Errno.SUCCESS;
      },
    };
  }
}
