// What runs inside a Python worker (any platform): boot Pyodide from the assets the kernel
// thread handed over, cut the bridges to the JS realm, announce `ready` and block until
// the kernel assigns a process, then become that process — mount the kernel filesystem,
// adopt descriptors 0-2, run the `python3` command line and report the exit status.
//
// The realm this runs in is hardened by the platform entry before this module is loaded
// (workers/python-*-worker.ts); this file keeps Python away from JS on top of that.

import { KernelClient, SyscallError } from './kernel-client.js';
import { installKernelFs, type KernelStreams } from './kernel-fs.js';
import { Errno } from '../errno.js';
import type { EmFS } from './emscripten-types.js';
import { bootPyodide, PyodideBootError, type CreatePyodideModule, type PyodideApi, type PyodideAssets } from './pyodide-boot.js';
import type { StartInfo } from './protocol.js';
import { DRIVER_SOURCE } from './py/driver.js';
import { PRELUDE_SOURCE } from './py/prelude.js';
import { SANDBOX_SOURCE } from './py/sandbox.js';
import { NETWORK_SOURCE } from './py/network.js';
import { EVENT_LOOP_SOURCE } from './py/event-loop.js';
import { DATA_CAPACITY } from './channel.js';

export interface WorkerRuntimeOptions {
  channel: SharedArrayBuffer;
  interrupt: SharedArrayBuffer;
  /** Make a memory snapshot after booting and hand it to the kernel (then to the host). */
  makeSnapshot: boolean;
}

const O_RDONLY = 0;
const O_WRONLY = 1;

/** Latin-1 string of bytes: how payloads cross the bridge without JS objects reaching Python. */
function bytesToLatin1(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return text;
}

function latin1ToBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/**
 * The one function Python may call into JS: a kernel request as JSON text plus an optional
 * latin-1 payload, answered as one string (JSON, NUL, latin-1 payload) so that no JS object
 * — and so no path to the realm's globals — is handed to Python.
 */
function bridgeCall(kernel: KernelClient, local: LocalCalls): (request: string, data?: string | null) => string {
  return (request: string, data?: string | null): string => {
    if (typeof request !== 'string') return JSON.stringify({ ok: false, errno: 28, message: 'bad request' });
    let parsed: unknown;
    try {
      parsed = JSON.parse(request);
    } catch {
      return JSON.stringify({ ok: false, errno: 28, message: 'bad request' });
    }
    const payload = typeof data === 'string' ? latin1ToBytes(data) : undefined;
    try {
      const op = (parsed as { op?: unknown }).op;
      if (typeof op === 'string' && op.startsWith('local.')) return JSON.stringify({ ok: true, value: local.call(op, parsed as Record<string, unknown>) });
      if (op === 'write' || op === 'netRequest') {
        if (payload !== undefined && payload.length > DATA_CAPACITY) return JSON.stringify({ ok: false, errno: 37, message: 'payload too large' });
      }
      const { value, data: answer } = kernel.call(parsed as Parameters<KernelClient['call']>[0], payload);
      const head = JSON.stringify({ ok: true, value: value ?? null });
      return answer === undefined ? head : `${head}\u0000${bytesToLatin1(answer)}`;
    } catch (error) {
      if (error instanceof SyscallError) return JSON.stringify({ ok: false, errno: error.errno, message: error.message });
      return JSON.stringify({ ok: false, errno: 29, message: error instanceof Error ? error.message : String(error) });
    }
  };
}

/** Imported before a snapshot is taken (what the prelude, the driver and most runs use). */
const SNAPSHOT_IMPORTS = 'import sys, os, io, json, types, errno, time, importlib.abc, importlib.machinery, runpy, subprocess, atexit, warnings, traceback, re, collections, functools, itertools, http.client';

/** Boots from the snapshot if there is one, and cold when it does not fit this build. */
export async function bootWithFallback(create: CreatePyodideModule, assets: PyodideAssets, makeSnapshot: boolean): Promise<{ pyodide: PyodideApi; module: { FS: unknown } }> {
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

/** Calls the worker answers itself: mapping Emscripten descriptors to kernel ones. */
class LocalCalls {
  streams: KernelStreams | undefined;

  call(op: string, request: Record<string, unknown>): unknown {
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
  let pyodide: PyodideApi;
  let FS: EmFS;
  try {
    const booted = await bootWithFallback(create, assets, options.makeSnapshot);
    pyodide = booted.pyodide;
    FS = booted.module.FS as unknown as EmFS;
  } catch (error) {
    kernel.fatal(`${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    return;
  }
  if (options.makeSnapshot) {
    try {
      // The modules every run needs are imported before the snapshot, so a restored
      // interpreter has them at no cost; nothing of the bridge exists yet.
      pyodide.runPython(SNAPSHOT_IMPORTS, { filename: '<airlock-snapshot>' });
      const snapshot = pyodide.makeMemorySnapshot();
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
    runPythonProcess(kernel, pyodide, FS, new Int32Array(options.interrupt));
  } catch (error) {
    kernel.fatal(`internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  }
}

/**
 * Becomes the process the kernel assigns (`ready`), runs it and reports its status
 * (`exit`), all synchronously over `kernel`: in a worker (mode 1) or inline on the kernel
 * thread (inline-program.ts). `interrupt` is Pyodide's interrupt buffer (2 = SIGINT).
 */
export function runPythonProcess(kernel: KernelClient, pyodide: PyodideApi, FS: EmFS, interrupt: Int32Array): void {
  pyodide.unregisterJsModule('js');
  pyodide.unregisterJsModule('pyodide_js');
  pyodide.setInterruptBuffer(interrupt);
  const local = new LocalCalls();
  pyodide.registerJsModule('_airlock_js', { call: bridgeCall(kernel, local) });
  const setup = pyodide.globals.get('dict') as () => { get(name: string): unknown; destroy?(): void };
  const scope = setup();
  // The prelude takes the bridge and removes every module that reaches JS; the sandbox
  // module (subprocess, sleep, network) and the command-line driver are defined next, all
  // before any user code exists.
  pyodide.runPython(PRELUDE_SOURCE, { globals: scope, filename: '<airlock-prelude>' });
  pyodide.unregisterJsModule('_airlock_js');
  pyodide.runPython(SANDBOX_SOURCE, { globals: scope, filename: '<airlock-sandbox>' });
  pyodide.runPython(NETWORK_SOURCE, { globals: scope, filename: '<airlock-network>' });
  pyodide.runPython(EVENT_LOOP_SOURCE, { globals: scope, filename: '<airlock-event-loop>' });
  pyodide.runPython(DRIVER_SOURCE, { globals: scope, filename: '<airlock-driver>' });
  const main = scope.get('main') as (start: string) => number;

  const start = kernel.ready();
  const status = becomeProcess(kernel, FS, start, main, local);
  kernel.exit(status);
}

function becomeProcess(kernel: KernelClient, FS: EmFS, start: StartInfo, main: (start: string) => number, local: LocalCalls): number {
  try {
    const topLevel = kernel.readdir('/').map((name) => {
      const stat = kernel.stat(`/${name}`, false);
      return { name, kind: stat.kind, target: stat.kind === 'symlink' ? kernel.readlink(`/${name}`) : undefined };
    });
    const streams = installKernelFs(FS, kernel, { topLevel });
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
  const status = main(JSON.stringify(start));
  return typeof status === 'number' ? status : 1;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? error.message;
  if (typeof error === 'object' && error !== null && 'errno' in error) return `errno ${String((error as { errno: unknown }).errno)}: ${new Error().stack ?? ''}`;
  return String(error);
}
