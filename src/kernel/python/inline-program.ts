// `python3` inline on the kernel thread (docs/architecture.md §2, mode 3): for pages without
// SharedArrayBuffer (a docs iframe that is not cross-origin isolated), where Python cannot
// have its own worker to block in. Pyodide runs in the kernel's realm, and each kernel call
// it makes is a plain synchronous call into the syscall core (sys/syscalls.ts) on this thread. When a call has
// to wait (an empty pipe, a child), the kernel runs the other processes from inside that
// call (Scheduler.driveUntil) until the wait ends.
//
// Measured limits, each ending in a clear error instead of a hang (docs/python.md):
// - only one synchronous process can be waiting at a time: a second inline Python cannot
//   run (or even finish booting) while the first waits, so `python3 | python3` that needs
//   both at once fails with EDEADLK;
// - nothing from the host arrives while Python waits (terminal input, network answers,
//   the next run): such a wait fails with EDEADLK at once;
// - a busy loop without kernel calls is stopped only by the host's hard kill (exit 124,
//   the run's effects rolled back); a call made after the deadline or a kill raises
//   KeyboardInterrupt through Pyodide's interrupt buffer (a plain Int32Array here).
//
// No Node-only imports: the browser's kernel worker calls this as well as Node.
//
// Use:
//   createInlinePythonProgram({ load, assets }): ExternalProgram
//     load(): resolves with the default export of Pyodide's pyodide.asm.mjs
//       (createPyodideModule), loaded by the caller (a module script of the pinned Pyodide,
//       314.0.7). Called on the first `python3` and again only after a failure. The factory
//       itself, not a wrapper that awaits it, is what each boot calls: its synchronous part
//       must run inside bootPyodide (which keeps it from leaving a MessagePort behind).
//     assets(): resolves with { module, stdlib, snapshot? } — pyodide.asm.wasm compiled to a
//       WebAssembly.Module, the bytes of python_stdlib.zip and optionally a memory snapshot
//       of the same build. Called once, on the first `python3`; the result is kept.
//   Register the program as the Kernel's external for ['python3', 'python', 'pip', 'pip3'].
//   Every run boots a fresh interpreter from those assets (no state survives a run).

import { Errno, KernelError } from '../errno.js';
import { ProcessKilled } from '../proc/exit.js';
import type { ExternalProgram } from '../sys/external-program.js';
import type { Process } from '../proc/process.js';
import type { Syscalls } from '../sys/syscalls.js';
import type { ChannelMessage } from './channel.js';
import { KernelClient, type KernelTransport } from './kernel-client.js';
import type { CreatePyodideModule, PyodideAssets } from './pyodide-boot.js';
import type { PythonRequest } from './protocol.js';
import { asPythonError, serveSyscallInline, startInfo, writeError } from './syscall-server.js';
import { bootWithFallback, runPythonProcess } from './worker-runtime.js';

export interface InlinePythonOptions {
  /** Loads Pyodide's createPyodideModule (default export of pyodide.asm.mjs). */
  load: () => Promise<CreatePyodideModule>;
  /** The compiled Module, stdlib bytes and optional snapshot; called once, on first use. */
  assets: () => Promise<PyodideAssets>;
}

const SIGINT = 2;

/** Builds the inline `python3` program (see the top of this file). */
export function createInlinePythonProgram(options: InlinePythonOptions): ExternalProgram {
  let assets: Promise<PyodideAssets> | undefined;
  let create: Promise<CreatePyodideModule> | undefined;
  return {
    name: 'python',
    async run(process: Process, sys: Syscalls): Promise<number> {
      // CPython ignores SIGPIPE: a write to a closed pipe raises BrokenPipeError.
      process.ignoreSigpipe = true;
      let booted: Awaited<ReturnType<typeof bootWithFallback>>;
      try {
        assets ??= options.assets();
        create ??= options.load();
        booted = await bootWithFallback(await create, await assets, false);
      } catch (error) {
        // A failed load is retried by the next run rather than remembered.
        assets = undefined;
        create = undefined;
        await writeError(sys, `python3: the interpreter could not start: ${error instanceof Error ? error.message : String(error)}\n`);
        return 1;
      }
      // From here on everything happens synchronously on this stack, run to its end.
      const session = new InlineSession(process, sys);
      try {
        runPythonProcess(new KernelClient(session), booted, session.interrupt);
      } catch (error) {
        session.fatal(`internal error: ${error instanceof Error ? error.message : String(error)}`);
      }
      return session.status();
    },
  };
}

/** The kernel's side of one inline interpreter: serves its requests on the kernel thread. */
class InlineSession implements KernelTransport {
  /** Pyodide's interrupt buffer: not shared, written by this thread inside a call. */
  readonly interrupt = new Int32Array(1);
  private exitStatus: number | undefined;
  private killed: ProcessKilled | undefined;

  constructor(
    private readonly process: Process,
    private readonly sys: Syscalls,
  ) {}

  call(message: ChannelMessage): ChannelMessage {
    const request = message.json as PythonRequest;
    switch (request.op) {
      case 'ready':
        return answer(startInfo(this.process, this.sys));
      case 'exit':
        this.exitStatus = typeof request.status === 'number' ? request.status & 0xff : 1;
        return answer(undefined);
      case 'fatal':
        this.fatal(String(request.message));
        return answer(undefined);
      case 'snapshotPart':
        return refuse(new KernelError(Errno.INVAL, 'no snapshot is made inline'));
      default:
        break;
    }
    try {
      const served = serveSyscallInline(this.sys, request, message.data);
      return { json: { ok: true, value: served.value }, data: served.data };
    } catch (error) {
      const failure = asPythonError(error);
      if (failure instanceof ProcessKilled) {
        // The process must end: KeyboardInterrupt at Python's next check (finally blocks
        // run; their calls fail the same way), and the kill's status whatever Python says.
        this.killed = failure;
        this.interrupt[0] = SIGINT;
        return refuse(new KernelError(Errno.INTR, `interrupted (${failure.reason})`));
      }
      // Python's OSError shows only the errno's text: say here why the wait cannot end.
      if (failure.errno === Errno.DEADLK) this.explain(`${failure.message} (python3 runs inline on the kernel thread here: no SharedArrayBuffer)`);
      return refuse(failure);
    }
  }

  status(): number {
    return this.killed?.status ?? this.process.pendingKill?.status ?? this.exitStatus ?? 1;
  }

  fatal(message: string): void {
    this.exitStatus ??= 1;
    this.explain(message);
  }

  /** A line on the process's stderr, if it can take one. */
  private explain(message: string): void {
    try {
      this.sys.completeInline(this.sys.writeAll(2, new TextEncoder().encode(`python3: ${message}\n`)));
    } catch (error) {
      if (!(error instanceof KernelError) && !(error instanceof ProcessKilled)) throw error;
    }
  }
}

function answer(value: unknown): ChannelMessage {
  return { json: { ok: true, value } };
}

function refuse(error: KernelError): ChannelMessage {
  return { json: { ok: false, errno: error.errno, message: error.message } };
}

