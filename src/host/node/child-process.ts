// A sandbox worker in Node: a child process (a worker_thread is not a security boundary)
// started with --disallow-code-generation-from-strings and the permission model (it may
// only read its own code and the wasm directory; no writes, child processes or addons),
// under the OS layer of os-sandbox.ts (bubblewrap: no network, only its own files, its own
// PID and IPC namespaces; less where the OS cannot) and in a cgroup of its own (cgroup.ts:
// the whole child's memory and CPU). The host talks to it through length-checked frames on
// the child's fd 3. The warm pool of spare children is spare-child.ts.

import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import * as Comlink from 'comlink';
import { installErrorTransfer } from '../../protocol/channel.js';
import { isWorkerEvent, type KernelApi, type KernelInit, type WorkerEvent } from '../../protocol/messages.js';
import { framedEndpoint, type FramedEndpoint } from '../../protocol/node-framing.js';
import type { KernelConnection } from '../connection.js';
import { pyodideDirectory } from '../python/node-snapshot.js';
import type { OsIsolation } from '../types.js';
import { osSandbox } from './os-sandbox.js';
import { createChildCgroup, type CgroupLimits, type CgroupResult, type ChildCgroup } from './cgroup.js';

/** The V8 flags of a sandbox child (bench/density.bench.ts runs its spawn loop with them). */
export const CHILD_V8_FLAGS: readonly string[] = [
  // A young generation of 8 MiB semi-spaces instead of V8's up to 16 MiB: the default grows
  // to ~30 MiB in a child that has run a few hundred processes and stays resident while it
  // idles. 1 MiB (until 2 December 2026) kept a used sandbox ~8 MiB smaller still, but then a
  // scavenge came every ~35 spawns and was in every spawn's p99 (0.56-0.84 ms quiet); with 8
  // MiB one comes every ~300 and the p99 is the spawn's own (0.21-0.36 ms; docs/limits.md).
  '--max-semi-space-size=8',
  // Tier the kernel's JavaScript up sooner (1/8 of V8's budget, 50 calls instead of 500 after
  // a type change): with the defaults V8 still optimized ~70 functions during a kernel's
  // spawns 501-3,500, on the cores those spawns ran on, and that was the young kernel's slow
  // 1%; with these, ~12-15 there, the rest within its first 500 (docs/limits.md).
  '--interrupt-budget=8448',
  '--minimum-invocations-after-ic-update=50',
  // One V8 platform thread instead of Node's four. On two cores, four background threads
  // compiling the young kernel's hot functions at once took both cores from the main thread
  // (4-20 ms spawns, 4 involuntary context switches each, in the first 500 spawns); with one,
  // the main thread keeps a core and a young kernel's p99 over spawns 1-3,000 went from
  // 2.4-2.9 ms to 0.58 (docs/limits.md).
  '--v8-pool-size=1',
  // Baseline (Sparkplug) code from a function's first call, and feedback vectors allocated at
  // once rather than after a few calls: the kernel's first few hundred spawns run less time
  // in the interpreter (a young kernel's p99 0.44-0.47 ms against 0.50-0.58 without them).
  '--always-sparkplug',
  '--no-lazy-feedback-allocation',
];

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
  /** The whole child's memory and CPU, held by its cgroup (limits.sandboxMemoryBytes, sandboxCpus). */
  resources?: CgroupLimits;
}

/**
 * The command line that starts a sandbox child for `spec`, and how the OS confines it; with
 * `resources` (a cgroup made for it, or why none could be), the child starts inside it.
 */
export function childCommand(spec: ChildSpec, resources?: CgroupResult): { program: string; args: string[]; isolation: OsIsolation } {
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
    ...CHILD_V8_FLAGS,
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
  const cgroup = resources?.cgroup;
  const command = cgroup === undefined ? { program: program ?? process.execPath, args: rest } : cgroup.wrap(program ?? process.execPath, rest);
  const missing = [...isolation.missing];
  if (cgroup === undefined) missing.push(`memory ceiling and CPU bound: ${resources?.reason ?? 'no cgroup was asked for'}`);
  else if (!cgroup.cpuBound) missing.push('CPU bound: the cgroup has no cpu controller here');
  return {
    ...command,
    isolation: { ...isolation, memoryCeiling: cgroup !== undefined, cpuBound: cgroup?.cpuBound ?? false, cgroup: cgroup === undefined ? null : { version: cgroup.version, paths: [...cgroup.paths] }, missing },
  };
}

export class ChildConnection implements KernelConnection {
  readonly api: Comlink.Remote<KernelApi>;
  isolation: OsIsolation | null = null;
  readonly died: Promise<string>;
  endedByLimit: { name: string; value: number } | undefined;
  /** The answer to the init message the pool sent while this child was a spare (preInit). */
  initialised: Promise<{ tools: string[] }> | undefined;
  private readonly listeners = new Set<(event: WorkerEvent) => void>();
  private terminated = false;
  private readonly endpoint: FramedEndpoint;
  private stderrTail = '';
  /** Starts the pool's next spare, once (settled() or the end of this child). */
  private refill: (() => void) | undefined;
  /** Told once when this child ends, killed or not (the pool counts a configuration's users). */
  private ended: (() => void) | undefined;

  constructor(
    private readonly child: ChildProcess,
    messageBytes: number,
    /** The child's cgroup and the ceiling it holds, if one could be made. */
    private readonly cgroup?: { cgroup: ChildCgroup; memoryBytes: number },
  ) {
    installErrorTransfer();
    const channel = child.stdio[3] as Duplex;
    // A child that ends with a frame in flight resets the channel (ECONNRESET, EPIPE): its
    // 'exit' reports the end (died), and an unhandled 'error' would end the host instead.
    channel.on('error', () => undefined);
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
        this.end();
        // Read before the cgroup goes: the kernel counts its OOM kills there.
        const outOfMemory = cgroup?.cgroup.oomKilled() === true;
        void cgroup?.cgroup.remove();
        if (this.terminated && violation === undefined) return;
        if (outOfMemory && cgroup !== undefined && violation === undefined) {
          this.endedByLimit = { name: 'sandboxMemoryBytes', value: cgroup.memoryBytes };
          resolve(`the sandbox's processes together went past its memory ceiling and were killed (sandboxMemoryBytes is ${cgroup.memoryBytes})`);
          return;
        }
        resolve(violation ?? `the sandbox process ended (${signal ?? `exit ${code}`})${this.stderrTail ? `: ${this.stderrTail.trim()}` : ''}`);
      });
      // Never started (no 'exit' follows): nothing is in the cgroup.
      child.on('error', () => void cgroup?.cgroup.remove());
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

  /**
   * Sends `init` now, while this child waits in the pool: the kernel's set-up then runs
   * before a sandbox (a fork) asks for it. Its failure is the taker's, as its own init's.
   */
  preInit(init: KernelInit): void {
    const initialised = this.api.init(init);
    initialised.catch(() => undefined);
    this.initialised = initialised;
    // And the image's loading, once, so that the fork's runs compiled (~0.5-1 ms of the
    // child's CPU less at 1,000 files; only ready spares: ~1 MiB more of an idle child).
    this.api.warmImageLoading().catch(() => undefined);
  }

  /** Calls `refill` once this child is set up or ends, whichever comes first. */
  refillAfter(refill: () => void): void {
    this.refill = refill;
  }

  /** Calls `listener` once, when this child is terminated or exits. */
  onEnded(listener: () => void): void {
    this.ended = listener;
  }

  private end(): void {
    const ended = this.ended;
    this.ended = undefined;
    ended?.();
  }

  settled(): void {
    const refill = this.refill;
    this.refill = undefined;
    // After what is waiting on the set-up (a fork's caller) has run.
    if (refill !== undefined) setImmediate(refill);
  }

  release(): void {
    this.child.unref();
    (this.child.stdio[3] as Duplex & { unref?: () => void }).unref?.();
  }

  terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.settled();
    this.end();
    this.child.kill('SIGKILL');
    // Everything the child started, too (its namespace's processes die with bubblewrap, but
    // only once the kernel gets to them; the cgroup goes only once they are gone).
    void this.cgroup?.cgroup.kill();
    this.endpoint.close();
  }
}

export function startChild(spec: ChildSpec): ChildConnection {
  const resources = spec.resources === undefined ? undefined : createChildCgroup(spec.resources);
  const { program, args, isolation } = childCommand(spec, resources);
  const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env: {} });
  const cgroup = resources?.cgroup === undefined || spec.resources === undefined ? undefined : { cgroup: resources.cgroup, memoryBytes: spec.resources.memoryBytes };
  const connection = new ChildConnection(child, spec.messageBytes, cgroup);
  connection.isolation = isolation;
  connection.release();
  return connection;
}
