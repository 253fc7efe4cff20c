// `python3` as a kernel process (docs/architecture.md §2, mode 1): Pyodide runs in its own
// Worker, started by the platform (worker_threads in Node, a nested Web Worker in the
// browser), and every kernel call it makes is a synchronous request on a SharedArrayBuffer
// channel that this side serves with the process's syscalls (sys/syscalls.ts). Each invocation gets a
// fresh interpreter: a worker serves one process and is terminated at its end; one spare is
// kept loading in the background so the next `python3` starts at once.
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
import type { PythonRequest, StartInfo } from './protocol.js';
import { asPythonError, safeIsatty, serveSyscall, writeError } from './syscall-server.js';

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

interface Spare {
  handle: PythonWorkerHandle;
  channel: ChannelServer;
  interrupt: Int32Array;
  /** Settles when the worker has loaded and sent `ready`. */
  ready: Promise<void>;
  loaded: boolean;
}

export class PythonProgram implements ExternalProgram {
  readonly name = 'python';
  private spare: Spare | undefined;

  constructor(private readonly factory: PythonWorkerFactory) {}

  /** Starts loading an interpreter now, so the first `python3` does not wait for it. */
  prewarm(): void {
    this.spare ??= this.startWorker();
  }

  private startWorker(): Spare {
    const channel = ChannelServer.create();
    const interruptBuffer = new SharedArrayBuffer(4);
    const handle = this.factory({ channel: channel.buffer, interrupt: interruptBuffer });
    const ready = (async () => {
      const first = await Promise.race([channel.next(), handle.failed.then((reason) => new WorkerFailed(reason))]);
      if (first instanceof WorkerFailed) throw first;
      const request = first?.json as PythonRequest | undefined;
      if (request?.op === 'fatal') throw new WorkerFailed(String(request.message));
      if (request?.op !== 'ready') throw new WorkerFailed(`the python worker sent ${String(request?.op)} before ready`);
    })();
    const spare: Spare = { handle, channel, interrupt: new Int32Array(interruptBuffer), ready, loaded: false };
    ready.then(
      () => (spare.loaded = true),
      () => undefined,
    );
    return spare;
  }

  private take(): Spare {
    const worker = this.spare ?? this.startWorker();
    this.spare = undefined;
    // The next interpreter loads while this one runs.
    queueMicrotask(() => this.prewarm());
    return worker;
  }

  async run(process: Process, sys: Syscalls): Promise<number> {
    // CPython ignores SIGPIPE: a write to a closed pipe raises BrokenPipeError.
    process.ignoreSigpipe = true;
    const worker = this.take();
    // Loading the interpreter (the first of a page downloads Pyodide and makes its
    // snapshot) is not the program's time: the run's clock stops meanwhile, for at most
    // PYTHON_LOAD_HOLD_MS.
    const release = worker.loaded ? undefined : sys.holdDeadline();
    const cap = release === undefined ? undefined : setTimeout(release, PYTHON_LOAD_HOLD_MS);
    try {
      await worker.ready;
    } catch (error) {
      worker.handle.terminate();
      const reason = error instanceof Error ? error.message : String(error);
      await writeError(sys, `python3: the interpreter could not start: ${reason}\n`);
      return 1;
    } finally {
      clearTimeout(cap);
      release?.();
    }
    try {
      return await this.serve(worker, process, sys);
    } finally {
      worker.channel.close();
      worker.handle.terminate();
    }
  }

  private async serve(worker: Spare, process: Process, sys: Syscalls): Promise<number> {
    const { channel, interrupt } = worker;
    const start: StartInfo = {
      argv: process.argv, env: process.env, cwd: process.cwd, pid: process.pid, ppid: process.ppid,
      tty: [0, 1, 2].map((fd) => safeIsatty(sys, fd)) as [boolean, boolean, boolean],
      interruptible: true,
      memoryBytes: sys.memoryLimitBytes(),
    };
    channel.answer({ json: { ok: true, value: start } });
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
          channel.answer({ json: { ok: true } });
          // A run stopped by the watchdog ends with the kill's status, whatever Python said.
          if (interruptedAt !== undefined) return process.pendingKill?.status ?? DEADLINE_STATUS;
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
    }
  }
}

export { Errno };
