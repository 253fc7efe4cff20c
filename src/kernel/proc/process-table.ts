// All processes of a sandbox: spawning (with descriptor inheritance), waiting, signals.

import { Errno, KernelError, fail } from '../errno.js';
import type { Description } from '../wasi/description.js';
import type { ProcessSource, ProcessView } from '../vfs/procfs.js';
import { Blocker } from './blocker.js';
import { IGNORED_BY_DEFAULT, ProcessKilled } from './exit.js';
import type { Program } from './module-registry.js';
import type { ProcessSyscalls } from './process-syscalls.js';
import { Process, type ImportBuilder } from './process.js';
import type { Scheduler } from './scheduler.js';
import { MemoryPool } from './memory-pool.js';

export interface SpawnSpec {
  parent: Process | undefined;
  tool: string;
  program: Program;
  argv: string[];
  env: string[];
  cwd: string;
  cwdIno: number;
  /** Descriptors the child starts with (child fd -> description). */
  fds: Array<[number, Description]>;
  /** The root directory, installed as a preopen at the lowest free fd >= 3. */
  preopen: Description;
  blob: Uint8Array;
  ignoreSigpipe: boolean;
  newGroup: boolean;
  umask: number;
}

export interface ProcessTableHooks {
  buildImports: ImportBuilder;
  syscallsFor(process: Process): ProcessSyscalls;
  memoryLimitBytes(): number;
  /** Writes a kernel message to a process's stderr (crashes, refusals). */
  writeStderr(process: Process, text: string): void;
  onExit?(process: Process): void;
}

export class ProcessTable implements ProcessSource {
  private readonly processes = new Map<number, Process>();
  private nextPid = 1;
  private readonly childWaiters = new Map<number, Blocker[]>();
  private readonly memories = new MemoryPool();
  readonly bootTime = performance.now();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly hooks: ProcessTableHooks,
  ) {}

  get(pid: number): Process | undefined {
    return this.processes.get(pid);
  }

  all(): Process[] {
    return [...this.processes.values()];
  }

  /** Creates a process and starts it on a later microtask; returns it at once. */
  spawn(spec: SpawnSpec): Process {
    const pid = this.nextPid++;
    const process = new Process({
      pid,
      ppid: spec.parent?.pid ?? 0,
      pgid: spec.newGroup || spec.parent === undefined ? pid : spec.parent.pgid,
      tool: spec.tool,
      program: spec.program,
      argv: spec.argv,
      env: spec.env,
      cwd: spec.cwd,
      cwdIno: spec.cwdIno,
      blob: spec.blob,
      ignoreSigpipe: spec.ignoreSigpipe,
      umask: spec.umask,
    });
    for (const [fd, description] of spec.fds) process.fds.set(fd, description);
    process.fds.add(spec.preopen, 3);
    this.processes.set(pid, process);
    this.scheduler.add(process);
    // From the scheduler's ready queue, so that a child spawned by a process that cannot
    // suspend (inline Python) starts while that process is still waiting in its call.
    this.scheduler.schedule(() => this.start(process));
    return process;
  }

  /** A process that only writes `message` to its stderr and exits: refusals at exec time. */
  spawnRefusal(spec: Omit<SpawnSpec, 'program' | 'tool'>, message: string, status: number): Process {
    const pid = this.nextPid++;
    const process = new Process({
      pid, ppid: spec.parent?.pid ?? 0, pgid: spec.parent?.pgid ?? pid, tool: '(refused)',
      program: undefined, argv: spec.argv, env: spec.env, cwd: spec.cwd, cwdIno: spec.cwdIno,
      blob: new Uint8Array(0), ignoreSigpipe: true, umask: spec.umask,
    });
    for (const [fd, description] of spec.fds) process.fds.set(fd, description);
    this.processes.set(pid, process);
    this.scheduler.schedule(() => {
      this.hooks.writeStderr(process, message);
      process.finish(status);
      this.onExited(process);
    });
    return process;
  }

  private start(process: Process): void {
    // Exit bookkeeping happens where the process finishes, not a microtask later: a parent
    // driving the scheduler synchronously (inline Python) must see its child's end.
    process.onFinish(() => {
      this.scheduler.remove(process);
      this.onExited(process);
    });
    if (process.pendingKill !== undefined) {
      process.finish(process.pendingKill.status);
    } else {
      void process.run({
        buildImports: this.hooks.buildImports,
        syscallsFor: this.hooks.syscallsFor,
        memoryLimitBytes: this.hooks.memoryLimitBytes(),
        memories: this.memories,
        writeError: (text) => this.hooks.writeStderr(process, text),
      });
    }
  }

  private onExited(process: Process): void {
    this.hooks.onExit?.(process);
    const parent = process.ppid === 0 ? undefined : this.processes.get(process.ppid);
    if (parent === undefined || parent.state === 'exited') {
      // Nobody will wait for it: reap at once.
      this.reap(process);
    } else {
      for (const waiter of (this.childWaiters.get(parent.pid) ?? []).slice()) waiter.wake();
    }
    // Its children that already ended are orphans nobody will wait for.
    for (const child of [...this.processes.values()]) {
      if (child.ppid === process.pid && child.state === 'exited') this.reap(child);
    }
  }

  /**
   * Waits for a child of `parent`: `pid` > 0 a given child, -1 any. Returns undefined
   * with `noHang` when none has ended yet.
   */
  wait(parent: Process, pid: number, noHang: boolean): { pid: number; status: number } | undefined | Blocker {
    const children = [...this.processes.values()].filter((p) => p.ppid === parent.pid && p.awaitingReap);
    const candidates = pid === -1 ? children : children.filter((p) => p.pid === pid);
    if (candidates.length === 0) fail(Errno.CHILD, 'no child processes');
    const done = candidates.find((p) => p.state === 'exited');
    if (done !== undefined) {
      this.reap(done);
      return { pid: done.pid, status: done.status as number };
    }
    if (noHang) return undefined;
    const blocker = new Blocker('internal', 'wait for child');
    const list = this.childWaiters.get(parent.pid) ?? [];
    list.push(blocker);
    this.childWaiters.set(parent.pid, list);
    blocker.onSettle(() => {
      const index = list.indexOf(blocker);
      if (index >= 0) list.splice(index, 1);
      if (list.length === 0) this.childWaiters.delete(parent.pid);
    });
    return blocker;
  }

  /** Forgets an ended process: its status has been collected or nobody will collect it. */
  reap(process: Process): void {
    process.awaitingReap = false;
    this.processes.delete(process.pid);
  }

  /** Sends `signal` to `pid` (> 0), to process group -pid (< -1) or, 0, the caller's group. */
  kill(caller: Process | undefined, pid: number, signal: number): void {
    if (signal < 0 || signal > 64) fail(Errno.INVAL, 'invalid signal');
    let targets: Process[];
    if (pid > 0) targets = [this.processes.get(pid)].filter((p): p is Process => p !== undefined);
    else {
      const group = pid === 0 ? caller?.pgid : -pid;
      targets = [...this.processes.values()].filter((p) => p.pgid === group);
    }
    if (targets.length === 0) fail(Errno.SRCH, 'no such process');
    if (signal === 0 || IGNORED_BY_DEFAULT.has(signal)) return;
    for (const target of targets) this.deliver(target, signal);
  }

  /** Ends a process regardless of its exemptions (the kernel's own decision, e.g. restore). */
  terminate(target: Process): void {
    if (target.state === 'exited') return;
    const kill = new ProcessKilled(128 + 9, 'signal');
    target.pendingKill = kill;
    target.blocker?.fail(kill);
  }

  private deliver(target: Process, signal: number): void {
    if (target.state === 'exited' || target.signalExempt) return;
    const kill = new ProcessKilled(128 + signal, 'signal');
    target.pendingKill = kill;
    if (target.blocker !== undefined) target.blocker.fail(kill);
  }

  // ---- ProcessSource for /proc ---------------------------------------------------------

  pids(): number[] {
    return [...this.processes.keys()].sort((a, b) => a - b);
  }

  view(pid: number): ProcessView | undefined {
    const process = this.processes.get(pid);
    if (process === undefined) return undefined;
    return {
      pid: process.pid,
      ppid: process.ppid,
      argv: process.argv,
      env: process.env,
      cwd: process.cwd,
      state: process.state === 'exited' ? 'zombie' : process.blocker !== undefined ? 'sleeping' : 'running',
      fds: process.fds.entries().map(([fd, description]) => [fd, description.label()]),
    };
  }

  uptimeSeconds(): number {
    return (performance.now() - this.bootTime) / 1000;
  }

  memoryBytes(): number {
    return this.hooks.memoryLimitBytes();
  }
}

export function isKernelError(error: unknown): error is KernelError {
  return error instanceof KernelError;
}
