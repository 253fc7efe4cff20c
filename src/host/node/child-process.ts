// A sandbox worker in Node: a child process (a worker_thread is not a security boundary)
// started with --disallow-code-generation-from-strings and the permission model (it may
// only read its own code and the wasm directory; no writes, child processes or addons),
// under the OS layer of os-sandbox.ts (bubblewrap: no network, only its own files, its own
// PID and IPC namespaces; less where the OS cannot). The host talks to it through
// length-checked frames on the child's fd 3.
//
// Starting Node and compiling the tool modules takes ~100 ms, so one spare child is kept
// warm per configuration: creating a sandbox then costs an init message.

import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import * as Comlink from 'comlink';
import { installErrorTransfer } from '../../protocol/channel.js';
import { isWorkerEvent, type KernelApi, type WorkerEvent } from '../../protocol/messages.js';
import { framedEndpoint, type FramedEndpoint } from '../../protocol/node-framing.js';
import type { ConnectOptions, KernelConnection } from '../connection.js';
import { pyodideDirectory } from '../python/node-snapshot.js';
import type { OsIsolation } from '../types.js';
import { osSandbox } from './os-sandbox.js';

export interface ChildSpec {
  bundle: string;
  wasmDir: string;
  messageBytes: number;
  /** Run the child without network when the OS allows it. */
  isolateNetwork: boolean;
  /** Python's memory snapshot file (src/host/python/node-snapshot.ts), if there is one. */
  pythonSnapshot?: string;
  /** Run Python inline on the kernel thread (mode 3) instead of in its own worker. */
  pythonInline?: boolean;
}

/** The command line that starts a sandbox child for `spec`, and how the OS confines it. */
export function childCommand(spec: ChildSpec): { program: string; args: string[]; isolation: OsIsolation } {
  const pyodideDir = pyodideDirectory();
  const nodeArgs = [
    '--disallow-code-generation-from-strings',
    '--experimental-permission',
    `--allow-fs-read=${spec.bundle}`,
    `--allow-fs-read=${spec.wasmDir}`,
    // Python and foreign WASI programs run in worker_threads of the child (docs/architecture.md
    // §2); the workers inherit this permission model and may read only their scripts and
    // Pyodide's files.
    '--allow-worker',
    `--allow-fs-read=${join(dirname(spec.bundle), 'python-worker.mjs')}`,
    `--allow-fs-read=${join(dirname(spec.bundle), 'wasi-worker.mjs')}`,
    ...(pyodideDir === undefined ? [] : [`--allow-fs-read=${pyodideDir}`]),
    ...(spec.pythonSnapshot === undefined ? [] : [`--allow-fs-read=${spec.pythonSnapshot}`]),
    '--no-warnings',
    spec.bundle,
    `--airlock-message-bytes=${spec.messageBytes}`,
    `--airlock-wasm-dir=${spec.wasmDir}`,
    ...(pyodideDir === undefined ? [] : [`--airlock-pyodide-dir=${pyodideDir}`]),
    ...(spec.pythonSnapshot === undefined ? [] : [`--airlock-python-snapshot=${spec.pythonSnapshot}`]),
    ...(spec.pythonInline === true ? ['--airlock-python-inline'] : []),
  ];
  const readable = [dirname(spec.bundle), spec.wasmDir, ...(pyodideDir === undefined ? [] : [pyodideDir]), ...(spec.pythonSnapshot === undefined ? [] : [spec.pythonSnapshot])];
  const { prefix, isolation } = osSandbox({ readable, isolateNetwork: spec.isolateNetwork });
  const [program, ...rest] = [...prefix, process.execPath, ...nodeArgs];
  return { program: program ?? process.execPath, args: rest, isolation };
}

class ChildConnection implements KernelConnection {
  readonly api: Comlink.Remote<KernelApi>;
  isolation: OsIsolation | null = null;
  readonly died: Promise<string>;
  private readonly listeners = new Set<(event: WorkerEvent) => void>();
  private terminated = false;
  private readonly endpoint: FramedEndpoint;
  private stderrTail = '';

  constructor(private readonly child: ChildProcess, messageBytes: number) {
    installErrorTransfer();
    const channel = child.stdio[3] as Duplex;
    let violation: string | undefined;
    this.endpoint = framedEndpoint(channel, messageBytes, (size) => {
      violation = `the sandbox sent a ${size}-byte message; the limit messageBytes is ${messageBytes}`;
      this.terminate();
    });
    this.endpoint.addEventListener('message', (event: Event) => {
      const data = (event as MessageEvent).data;
      if (isWorkerEvent(data)) for (const listener of this.listeners) listener(data);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    this.died = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        if (this.terminated && violation === undefined) return;
        resolve(violation ?? `the sandbox process ended (${signal ?? `exit ${code}`})${this.stderrTail ? `: ${this.stderrTail.trim()}` : ''}`);
      });
    });
    this.api = Comlink.wrap<KernelApi>(this.endpoint);
  }

  onEvent(listener: (event: WorkerEvent) => void): void {
    this.listeners.add(listener);
  }

  /** Keeps the host alive while this child is in use (spares do not). */
  hold(): void {
    this.child.ref();
    (this.child.stdio[3] as Duplex & { ref?: () => void }).ref?.();
  }

  release(): void {
    this.child.unref();
    (this.child.stdio[3] as Duplex & { unref?: () => void }).unref?.();
  }

  terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.child.kill('SIGKILL');
    this.endpoint.close();
  }
}

function startChild(spec: ChildSpec): ChildConnection {
  const { program, args, isolation } = childCommand(spec);
  const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env: {} });
  const connection = new ChildConnection(child, spec.messageBytes);
  connection.isolation = isolation;
  connection.release();
  return connection;
}

/** One warm spare child per configuration. */
export class ChildPool {
  private readonly spares = new Map<string, ChildConnection>();

  connect(spec: ChildSpec, options: ConnectOptions): KernelConnection {
    const full = { ...spec, messageBytes: options.messageBytes };
    const key = JSON.stringify(full);
    let connection = this.spares.get(key);
    this.spares.delete(key);
    connection ??= startChild(full);
    connection.hold();
    const spare = startChild(full);
    this.spares.set(key, spare);
    void spare.died.then(() => {
      if (this.spares.get(key) === spare) this.spares.delete(key);
    });
    return connection;
  }

  /** Ends the spares (tests and CLIs that want to exit promptly). */
  drain(): void {
    for (const spare of this.spares.values()) spare.terminate();
    this.spares.clear();
  }
}
