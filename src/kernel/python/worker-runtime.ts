// What runs inside a Python worker (any platform): boot Pyodide from the assets the kernel
// thread handed over, cut the bridges to the JS realm, announce `ready` and block until
// the kernel assigns a process, then become that process — mount the kernel filesystem,
// adopt descriptors 0-2, run the `python3` command line and report the exit status.
//
// The realm this runs in is hardened by the platform entry before this module is loaded
// (workers/python-*-worker.ts); this file keeps Python away from JS on top of that.

import { KernelClient, SyscallError } from './kernel-client.js';
import { installKernelFs, type KernelStreams } from './kernel-fs.js';
import { InterpreterImage } from './interpreter-reset.js';
import { Errno } from '../errno.js';
import type { EmFS } from './emscripten-types.js';
import { bootPyodide, PyodideBootError, type BootedPyodide, type CreatePyodideModule, type PyodideAssets } from './pyodide-boot.js';
import type { InterpreterSeal } from './interpreter-seal.js';
import { installKernelDevice, type KernelDeviceServer } from './kernel-device.js';
import { neuterPyodide } from './pyodide-neuter.js';
import type { PythonRequest, StartInfo, TopLevelEntry } from './protocol.js';
import { DRIVER_SOURCE, EVENT_LOOP_SOURCE, EXTENSIONS_SOURCE, NETWORK_SOURCE, PRELUDE_SOURCE, SANDBOX_SOURCE } from './py/sources.js';
import { DATA_CAPACITY } from './channel.js';

export interface WorkerRuntimeOptions {
  channel: SharedArrayBuffer;
  interrupt: SharedArrayBuffer;
  /** Make a memory snapshot after booting and hand it to the kernel (then to the host). */
  makeSnapshot: boolean;
}

const O_RDONLY = 0;
const O_WRONLY = 1;

/**
 * Serves the kernel device (kernel-device.ts), the one way Python calls the kernel: a
 * request as JSON text plus optional payload bytes, answered the same way, so that no JS
 * object — and so no path to the realm — is ever handed to Python. The request is
 * untrusted: anything malformed is EINVAL.
 */
function kernelDeviceServer(kernel: KernelClient, local: LocalCalls): KernelDeviceServer {
  const refuse = (errno: number, message: string): { json: string } => ({ json: JSON.stringify({ ok: false, errno, message }) });
  return (json, payload) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return refuse(Errno.INVAL, 'bad request: not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return refuse(Errno.INVAL, 'bad request: not an object');
    const request = parsed as Record<string, unknown>;
    const op = request.op;
    if (typeof op !== 'string') return refuse(Errno.INVAL, 'bad request: no op');
    try {
      if (op.startsWith('local.')) return { json: JSON.stringify({ ok: true, value: local.call(op, request) ?? null }) };
      if (!KERNEL_OPS.has(op)) return refuse(Errno.NOSYS, `unknown call ${op}`);
      if (payload !== undefined && payload.length > DATA_CAPACITY) return refuse(Errno.MSGSIZE, 'payload too large');
      const { value, data } = kernel.call(request as PythonRequest, payload);
      return { json: JSON.stringify({ ok: true, value: value ?? null }), payload: data };
    } catch (error) {
      if (error instanceof SyscallError) return refuse(error.errno, error.message);
      return refuse(Errno.INVAL, error instanceof Error ? error.message : String(error));
    }
  };
}

/** The kernel calls Python may make; the worker's own (ready, exit, fatal, snapshotPart) are not among them. */
const KERNEL_OPS = new Set([
  'open', 'close', 'read', 'write', 'seek', 'fstat', 'ftruncate', 'isatty', 'stat', 'readdir', 'mkdir', 'rmdir', 'unlink',
  'rename', 'symlink', 'readlink', 'chmod', 'utimes', 'truncate', 'chdir', 'umask', 'pipe', 'poll', 'spawn', 'wait', 'kill',
  'sleep', 'deadline', 'netRequest', 'netResponse', 'netRead', 'netClose',
]);

/** Imported before a snapshot is taken (what the prelude, the driver and most runs use). */
const SNAPSHOT_IMPORTS = 'import sys, os, io, json, types, errno, time, importlib.abc, importlib.machinery, runpy, subprocess, atexit, warnings, traceback, re, collections, functools, itertools, http.client';

/** Boots from the snapshot if there is one, and cold when it does not fit this build. */
export async function bootWithFallback(create: CreatePyodideModule, assets: PyodideAssets, makeSnapshot: boolean): Promise<BootedPyodide> {
  const print = (): void => undefined;
  if (assets.snapshot !== undefined && !makeSnapshot) {
    try {
      return await bootPyodide(create, assets, { makeSnapshot: false, print });
    } catch (error) {
      if (!(error instanceof PyodideBootError)) throw error;
    }
  }
  return bootPyodide(create, { module: assets.module, stdlib: assets.stdlib }, { makeSnapshot, print });
}

/** Calls the worker answers itself: the seal, and mapping Emscripten descriptors to kernel ones. */
class LocalCalls {
  streams: KernelStreams | undefined;
  /** The current process's start info (JSON), which the driver asks for. */
  start: string | undefined;

  constructor(private readonly seal: InterpreterSeal) {}

  call(op: string, request: Record<string, unknown>): unknown {
    if (op === 'local.seal') {
      this.seal.seal();
      return null;
    }
    if (op === 'local.start') {
      if (this.start === undefined) throw new SyscallError(Errno.INVAL, 'no process was assigned');
      return this.start;
    }
    const streams = this.streams;
    const fd = request.fd;
    if (streams === undefined || typeof fd !== 'number') throw new SyscallError(Errno.BADF, 'bad file descriptor');
    if (op === 'local.kernelFd') return streams.kernelFd(fd);
    if (op === 'local.wrap') return streams.wrap(fd, typeof request.flags === 'number' ? request.flags : 0);
    throw new SyscallError(Errno.NOSYS, `unknown call ${op}`);
  }
}

/** Boots, serves one process, returns its exit status (already reported to the kernel). */
export async function runPythonWorker(create: CreatePyodideModule, assets: PyodideAssets, options: WorkerRuntimeOptions): Promise<void> {
  const kernel = new KernelClient(options.channel);
  let booted: BootedPyodide;
  try {
    booted = await bootWithFallback(create, assets, options.makeSnapshot);
    // Booted: the snapshot's ~30 MiB need not stay for as long as the worker does.
    assets.snapshot = undefined;
  } catch (error) {
    kernel.fatal(`${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    return;
  }
  if (options.makeSnapshot) {
    try {
      // The modules every run needs are imported before the snapshot, so a restored
      // interpreter has them at no cost; nothing of the bridge exists yet.
      booted.pyodide.runPython(SNAPSHOT_IMPORTS, { filename: '<airlock-snapshot>' });
      const snapshot = booted.pyodide.makeMemorySnapshot();
      for (let offset = 0; offset < snapshot.length; offset += DATA_CAPACITY) {
        kernel.snapshotPart(snapshot.subarray(offset, offset + DATA_CAPACITY), offset, snapshot.length);
      }
      kernel.exit(0);
    } catch (error) {
      kernel.fatal(`the snapshot could not be made: ${describe(error)}`);
    }
    return;
  }
  try {
    runPythonProcess(kernel, booted, new Int32Array(options.interrupt), true);
  } catch (error) {
    kernel.fatal(`internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  }
}

/** What a worker keeps between the processes it serves (worker mode reuses it, interpreter-reset.ts). */
interface Session {
  kernel: KernelClient;
  booted: BootedPyodide;
  FS: EmFS;
  main: () => number;
  local: LocalCalls;
  /** Make an image and serve further processes from it. */
  reuse: boolean;
  /** The kernel filesystem as mounted, for the top-level listing it was mounted for. */
  mounted?: { topLevel: string; streams: KernelStreams };
  image?: InterpreterImage;
  /** Why this interpreter must not serve another process (set before any reset is tried). */
  notReusable?: string;
}

/**
 * Becomes the process the kernel assigns (`ready`), runs it and reports its status
 * (`exit`), all synchronously over `kernel`: in a worker (mode 1) or inline on the kernel
 * thread (inline-program.ts). `interrupt` is Pyodide's interrupt buffer (2 = SIGINT).
 * With `reuse` (worker mode), the interpreter is then reset to its image and asks for the
 * next process; one that cannot be reset exactly says why (`retire`) and its worker ends.
 */
export function runPythonProcess(kernel: KernelClient, booted: BootedPyodide, interrupt: Int32Array, reuse = false): void {
  const { pyodide, seal } = booted;
  const FS = booted.module.FS as unknown as EmFS;
  pyodide.unregisterJsModule('js');
  pyodide.unregisterJsModule('pyodide_js');
  pyodide.setInterruptBuffer(interrupt);
  const local = new LocalCalls(seal);
  installKernelDevice(FS, kernelDeviceServer(kernel, local));
  const setup = pyodide.globals.get('dict') as () => { get(name: string): unknown; destroy?(): void };
  const scope = setup();
  // The prelude builds the kernel bridge and removes every module that reaches JS; the
  // sandbox module (subprocess, sleep, network) and the command-line driver are defined
  // next, all before any user code exists. The driver seals the interpreter before it runs
  // the program (interpreter-seal.ts).
  pyodide.runPython(PRELUDE_SOURCE, { globals: scope, filename: '<airlock-prelude>' });
  pyodide.runPython(SANDBOX_SOURCE, { globals: scope, filename: '<airlock-sandbox>' });
  pyodide.runPython(NETWORK_SOURCE, { globals: scope, filename: '<airlock-network>' });
  pyodide.runPython(EXTENSIONS_SOURCE, { globals: scope, filename: '<airlock-extensions>' });
  pyodide.runPython(EVENT_LOOP_SOURCE, { globals: scope, filename: '<airlock-event-loop>' });
  pyodide.runPython(DRIVER_SOURCE, { globals: scope, filename: '<airlock-driver>' });
  const main = scope.get('main') as () => number;
  // Setup's JS objects leave the heap now, before any image is taken: a process's first
  // call into Python is then main() alone, with no argument to convert.
  (scope.get('prepare') as () => void)();
  neuterPyodide(booted);

  const session: Session = { kernel, booted, FS, main, local, reuse };
  let resetMs: number | undefined;
  for (;;) {
    const start = kernel.ready(resetMs);
    kernel.exit(becomeProcess(session, start));
    if (!reuse) return;
    const resetStarted = performance.now();
    const reason = session.notReusable ?? (session.image === undefined ? 'no image of the interpreter was taken' : session.image.reset());
    resetMs = performance.now() - resetStarted;
    if (reason !== undefined) {
      kernel.retire(reason);
      return;
    }
    Atomics.store(interrupt, 0, 0);
    seal.reopen();
  }
}

/** Mounts the kernel filesystem (once per worker, again if the root's listing changed) and takes the image. */
function attachFilesystem(session: Session, topLevel: TopLevelEntry[]): KernelStreams {
  const { kernel, FS } = session;
  const key = JSON.stringify(topLevel);
  if (session.mounted?.topLevel === key) return session.mounted.streams;
  // Mounted again over the image's mounts: that state is not the image's any more.
  if (session.mounted !== undefined) session.notReusable = 'the top-level directories of the sandbox changed';
  const streams = installKernelFs(FS, kernel, { topLevel });
  session.mounted = { topLevel: key, streams };
  if (session.reuse && session.image === undefined && session.notReusable === undefined) {
    try {
      session.image = new InterpreterImage(session.booted.wasm, FS, session.booted.module.MEMFS, session.booted.seal);
    } catch (error) {
      session.notReusable = `no image could be taken: ${describe(error)}`;
    }
  }
  return streams;
}

function becomeProcess(session: Session, start: StartInfo): number {
  const { kernel, FS, main, local } = session;
  const seal = session.booted.seal;
  try {
    const streams = attachFilesystem(session, start.topLevel);
    local.streams = streams;
    // A descriptor the parent closed (python3 <&-) stays closed for Python too.
    for (const [fd, flags] of [[0, O_RDONLY], [1, O_WRONLY], [2, O_WRONLY]] as const) {
      try {
        streams.adopt(fd, fd, flags);
      } catch (error) {
        if (!(error instanceof Error && 'errno' in error)) throw error;
        if (FS.streams[fd]) FS.closeStream(fd);
      }
    }
  } catch (error) {
    kernel.fatal(`the sandbox filesystem could not be attached: ${describe(error)}`);
    return 1;
  }
  // From here on the interpreter's memory grows only up to the sandbox's limit.
  seal.limitMemory(start.memoryBytes);
  local.start = JSON.stringify(start);
  let status: unknown;
  try {
    status = main();
  } catch (error) {
    if (seal.breach === undefined) throw error;
  }
  // The seal refused a call: the interpreter unwound (Pyodide may also swallow the error
  // and return nothing) and is never used again.
  if (seal.breach !== undefined) {
    kernel.fatal(seal.breach.message);
    return 1;
  }
  return typeof status === 'number' ? status : 1;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? error.message;
  if (typeof error === 'object' && error !== null && 'errno' in error) return `errno ${String((error as { errno: unknown }).errno)}: ${new Error().stack ?? ''}`;
  return String(error);
}
