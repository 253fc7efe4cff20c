// `python3` as a kernel process (docs/architecture.md §2, mode 1): Pyodide runs in its own
// Worker, started by the platform (worker_threads in Node, a nested Web Worker in the
// browser), and every kernel call it makes is a synchronous request on a SharedArrayBuffer
// channel that this side serves with the process's syscalls (sys/syscalls.ts). Each invocation gets a
// fresh interpreter: a worker serves a process, then resets its interpreter to the image it
// took before its first one (interpreter-reset.ts: memory, globals, tables, the JS state
// the interpreter's imports reach) and waits, idle, for the next; a worker that cannot be
// reset exactly retires and is terminated. The idle workers are a pool sized by demand
// (three Pythons of one pipeline run in three workers), trimmed to POOL_KEEP after a pause.
//
// Timeouts and signals: a call made after the deadline or a kill ends the process at once.
// An interpreter busy in pure Python makes no calls, so a watchdog writes SIGINT into
// Pyodide's interrupt buffer (KeyboardInterrupt, `finally` blocks run) and terminates the
// worker if it is still running after a grace period.

import { PYTHON_LOAD_HOLD_MS } from '../../protocol/limits.js';
import { Errno } from '../errno.js';
import { DEADLINE_STATUS, ProcessKilled } from '../proc/exit.js';
import type { ExternalProgram } from '../sys/external-program.js';
import type { Process } from '../proc/process.js';
import type { Syscalls } from '../sys/syscalls.js';
import { ChannelServer } from './channel.js';
import type { PythonRequest } from './protocol.js';
import { asPythonError, serveSyscall, startInfo, writeError } from './syscall-server.js';

/** What a platform passes to a new Python worker. */
export interface PythonWorkerInit {
  channel: SharedArrayBuffer;
  /** Pyodide's interrupt buffer (Int32Array over it): 2 = SIGINT. */
  interrupt: SharedArrayBuffer;
}

export interface PythonWorkerHandle {
  terminate(): void;
  /** Resolves with a reason if the worker fails on its own (load error, crash). */
  readonly failed: Promise<string>;
}

/** Starts a worker that loads Pyodide and then asks for its process with `ready`. */
export type PythonWorkerFactory = (init: PythonWorkerInit) => PythonWorkerHandle;

/** A started worker, as startWhenLoaded() needs it. */
interface StartedWorker {
  terminate(): void;
}

/**
 * The handle of a worker that can start only once `assets` have loaded (Node and browser
 * alike): `start` gets the assets and a `fail` to report the worker's own failures; a
 * terminate() before then means it never starts. A load failure becomes `failed` with
 * `loadFailure`'s wording.
 */
export function startWhenLoaded<A>(assets: Promise<A>, start: (loaded: A, fail: (reason: string) => void) => StartedWorker, loadFailure: (message: string) => string): PythonWorkerHandle {
  let worker: StartedWorker | undefined;
  let terminated = false;
  let fail: (reason: string) => void = () => undefined;
  const failed = new Promise<string>((resolve) => {
    fail = resolve;
  });
  assets.then(
    (loaded) => {
      if (!terminated) worker = start(loaded, fail);
    },
    (error: unknown) => fail(loadFailure(error instanceof Error ? error.message : String(error))),
  );
  return {
    failed,
    terminate(): void {
      terminated = true;
      worker?.terminate();
    },
  };
}

const INTERRUPT_GRACE_MS = 1000;
const WATCHDOG_MS = 50;
const SIGINT = 2;

class WorkerFailed extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'WorkerFailed';
  }
}

/** The most idle workers a sandbox keeps right after a burst (a pipeline of this many Pythons restarts at once). */
export const POOL_CAP = 3;
/** Idle workers kept once no `python3` started for POOL_TRIM_MS. */
export const POOL_KEEP = 1;
const POOL_TRIM_MS = 15_000;
/**
 * With this variable at 1 in a python3 process's environment, the kernel writes to its
 * stderr, before Python starts, whether the interpreter is fresh or reused (tests of reuse).
 */
export const TRACE_VARIABLE = 'AIRLOCK_PYTHON_TRACE';

interface Spare {
  handle: PythonWorkerHandle;
  channel: ChannelServer;
  interrupt: Int32Array;
  /** Settles when the worker has loaded (or been reset) and sent `ready`. */
  ready: Promise<void>;
  loaded: boolean;
  /** Processes this worker has served. */
  runs: number;
  /** Set when its last process ended with `exit` and nothing else: it may be reset and reused. */
  reusable: boolean;
  /** How long its last reset took (the trace shows it). */
  resetMs?: number;
}

export class PythonProgram implements ExternalProgram {
  readonly name = 'python';
  /** Workers loading or waiting for a process, oldest first. */
  private readonly idle: Spare[] = [];
  private trimTimer: ReturnType<typeof setTimeout> | undefined;
  /** Why the last worker that served a process could not be reused (for the trace). */
  private lastRetired: string | undefined;

  constructor(private readonly factory: PythonWorkerFactory) {}

  /** Starts loading an interpreter now (unless one is idle), so the next `python3` does not wait for it. */
  prewarm(): void {
    if (this.idle.length === 0) this.idle.push(this.startWorker());
  }

  /** How many workers are idle (loading or ready); for tests and the benchmark. */
  get idleWorkers(): number {
    return this.idle.length;
  }

  private startWorker(): Spare {
    const channel = ChannelServer.create();
    const interruptBuffer = new SharedArrayBuffer(4);
    const handle = this.factory({ channel: channel.buffer, interrupt: interruptBuffer });
    const spare: Spare = { handle, channel, interrupt: new Int32Array(interruptBuffer), ready: Promise.resolve(), loaded: false, runs: 0, reusable: false };
    this.awaitReady(spare);
    return spare;
  }

  /** Waits for the worker's `ready` (after loading, or after a reset); anything else fails it. */
  private awaitReady(spare: Spare): void {
    spare.loaded = false;
    spare.ready = (async () => {
      const first = await Promise.race([spare.channel.next(), spare.handle.failed.then((reason) => new WorkerFailed(reason))]);
      if (first instanceof WorkerFailed) throw first;
      const request = first?.json as PythonRequest | undefined;
      if (request?.op === 'fatal') throw new WorkerFailed(String(request.message));
      if (request?.op === 'retire') throw new WorkerFailed(`the interpreter could not be reset: ${request.reason}`);
      if (request?.op !== 'ready') throw new WorkerFailed(`the python worker sent ${String(request?.op)} before ready`);
      spare.resetMs = request.resetMs;
    })();
    spare.ready.then(
      () => (spare.loaded = true),
      () => undefined,
    );
  }

  private take(): Spare {
    const loaded = this.idle.findIndex((spare) => spare.loaded);
    const [worker] = this.idle.splice(loaded >= 0 ? loaded : 0, 1);
    this.scheduleTrim();
    return worker ?? this.startWorker();
  }

  /** After a clean exit: the worker resets itself and comes back to the pool, or retires. */
  private recycle(worker: Spare): void {
    worker.runs++;
    worker.reusable = false;
    Atomics.store(worker.interrupt, 0, 0);
    this.awaitReady(worker);
    this.idle.push(worker);
    worker.ready.catch((error: unknown) => {
      this.lastRetired = error instanceof Error ? error.message : String(error);
      // Still idle: the one that retired was to be the next, so keep one loading (a run
      // that took it meanwhile starts its own).
      if (!this.idle.includes(worker)) return;
      this.discard(worker);
      this.prewarm();
    });
    while (this.idle.length > POOL_CAP) this.discard(this.idle[0] as Spare);
  }

  private discard(worker: Spare): void {
    const index = this.idle.indexOf(worker);
    if (index >= 0) this.idle.splice(index, 1);
    worker.channel.close();
    worker.handle.terminate();
  }

  /** A pause in python3 use: keep POOL_KEEP idle workers (the ready ones first). */
  private scheduleTrim(): void {
    clearTimeout(this.trimTimer);
    this.trimTimer = setTimeout(() => {
      this.trimTimer = undefined;
      const surplus = this.idle.filter((spare) => !spare.loaded).concat(this.idle.filter((spare) => spare.loaded)).slice(0, Math.max(0, this.idle.length - POOL_KEEP));
      for (const worker of surplus) this.discard(worker);
    }, POOL_TRIM_MS);
    // A pending trim does not keep a Node process alive.
    (this.trimTimer as { unref?: () => void }).unref?.();
  }

  async run(process: Process, sys: Syscalls): Promise<number> {
    // CPython ignores SIGPIPE: a write to a closed pipe raises BrokenPipeError.
    process.ignoreSigpipe = true;
    let worker = this.take();
    // Loading the interpreter (the first of a page downloads Pyodide and makes its
    // snapshot) is not the program's time: the run's clock stops meanwhile, for at most
    // PYTHON_LOAD_HOLD_MS.
    const release = worker.loaded ? undefined : sys.holdDeadline();
    const cap = release === undefined ? undefined : setTimeout(release, PYTHON_LOAD_HOLD_MS);
    try {
      for (;;) {
        try {
          await worker.ready;
          break;
        } catch (error) {
          worker.channel.close();
          worker.handle.terminate();
          // A used worker that could not be reset retired: this run takes a fresh one.
          if (worker.runs > 0) {
            this.lastRetired = error instanceof Error ? error.message : String(error);
            worker = this.startWorker();
            continue;
          }
          const reason = error instanceof Error ? error.message : String(error);
          await writeError(sys, `python3: the interpreter could not start: ${reason}\n`);
          return 1;
        }
      }
    } finally {
      clearTimeout(cap);
      release?.();
    }
    if (process.env.includes(`${TRACE_VARIABLE}=1`)) {
      const trace = worker.runs > 0 ? `reused interpreter (process ${worker.runs + 1} of its worker, reset in ${(worker.resetMs ?? 0).toFixed(1)} ms)` : `fresh interpreter${this.lastRetired === undefined ? '' : ` (the last reused one retired: ${this.lastRetired})`}`;
      await writeError(sys, `python3: ${trace}\n`).catch(() => undefined);
    }
    try {
      return await this.serve(worker, process, sys);
    } finally {
      if (worker.reusable) {
        this.recycle(worker);
      } else {
        worker.channel.close();
        worker.handle.terminate();
        this.prewarm();
      }
    }
  }

  private async serve(worker: Spare, process: Process, sys: Syscalls): Promise<number> {
    const { channel, interrupt } = worker;
    channel.answer({ json: { ok: true, value: startInfo(process, sys) } });
    // Ctrl-C is KeyboardInterrupt, as in CPython: the REPL and `except KeyboardInterrupt`
    // go on; a program that lets it propagate exits 130.
    process.interruptHandler = () => Atomics.store(interrupt, 0, SIGINT);

    let ended: ((status: number) => void) | undefined;
    const endedByWatchdog = new Promise<number>((resolve) => {
      ended = resolve;
    });
    let interruptedAt: number | undefined;
    const watchdog = setInterval(() => {
      const kill = process.pendingKill ?? (sys.deadlineRemaining() === 0 ? new ProcessKilled(DEADLINE_STATUS, 'deadline') : undefined);
      if (kill === undefined) return;
      const now = performance.now();
      if (interruptedAt === undefined) {
        interruptedAt = now;
        Atomics.store(interrupt, 0, SIGINT);
      } else if (now - interruptedAt > INTERRUPT_GRACE_MS) {
        ended?.(kill.status);
      }
    }, WATCHDOG_MS);
    try {
      for (;;) {
        const next = await Promise.race([channel.next(), endedByWatchdog, worker.handle.failed.then((reason) => new WorkerFailed(reason))]);
        if (typeof next === 'number') return next;
        if (next instanceof WorkerFailed) {
          await writeError(sys, `python3: the interpreter stopped: ${next.message}\n`).catch(() => undefined);
          return process.pendingKill?.status ?? 1;
        }
        if (next === undefined) return 1;
        const request = next.json as PythonRequest;
        if (request.op === 'exit') {
          // A run stopped by the watchdog ends with the kill's status, whatever Python said
          // (and its worker is not reused: the interrupt may still be on its way).
          if (interruptedAt !== undefined) {
            channel.answer({ json: { ok: true } });
            return process.pendingKill?.status ?? DEADLINE_STATUS;
          }
          worker.reusable = true;
          channel.answer({ json: { ok: true } });
          return typeof request.status === 'number' ? request.status & 0xff : 1;
        }
        if (request.op === 'fatal') {
          await writeError(sys, `python3: ${String(request.message)}\n`).catch(() => undefined);
          return 1;
        }
        try {
          const served = await serveSyscall(sys, request, next.data);
          channel.answer({ json: { ok: true, value: served.value }, data: served.data });
        } catch (error) {
          const failure = asPythonError(error);
          if (failure instanceof ProcessKilled) return failure.status;
          channel.answer({ json: { ok: false, errno: failure.errno, message: failure.message } });
        }
      }
    } finally {
      clearInterval(watchdog);
      // A late Ctrl-C for this process must not reach the worker's next one.
      process.interruptHandler = undefined;
    }
  }
}

export { Errno };
