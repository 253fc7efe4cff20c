// All processes of a sandbox: spawning (with descriptor inheritance), waiting, signals.

import { Errno, KernelError, fail } from '../errno.js';
import { WaitQueue, type Blocker } from '../fd/blocker.js';
import type { Description } from '../fd/description.js';
import type { ProcessSource, ProcessView } from '../vfs/procfs.js';
import { IGNORED_BY_DEFAULT, ProcessKilled, SIGNALS } from './exit.js';
import type { Program } from './process.js';
import { Process } from './process.js';
import type { Scheduler } from './scheduler.js';

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
  memoryLimitBytes(): number;
  /** Processes alive at once (limits.processes). */
  processLimit(): number;
  /** A spawn was refused by the process limit (before it fails with EAGAIN). */
  processLimitReached?(limit: number): void;
  /** A process ended at memoryBytes. */
  memoryLimitReached?(): void;
  /** Why no process may start now (a run being ended at its limit), or undefined. */
  spawnsClosed?(): string | undefined;
  /** Writes a kernel message to a process's stderr (crashes, refusals). */
  writeStderr(process: Process, text: string): void;
  onExit?(process: Process): void;
}

export class ProcessTable implements ProcessSource {
  private readonly processes = new Map<number, Process>();
  private nextPid = 1;
  /** Parents waiting for a child to end, by the parent's pid. */
  private readonly childWaiters = new Map<number, WaitQueue>();
  /** Processes spawned and not yet finished (what limits.processes counts). */
  private live = 0;
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

  /** Processes alive now (spawned, not yet finished). */
  get liveCount(): number {
    return this.live;
  }

  /**
   * Creates a process and starts it on a later microtask; returns it at once. EAGAIN when
   * the sandbox already has limits.processes processes, as fork(2) under RLIMIT_NPROC.
   */
  spawn(spec: SpawnSpec): Process {
    const closed = this.hooks.spawnsClosed?.();
    if (closed !== undefined) fail(Errno.AGAIN, closed);
    const limit = this.hooks.processLimit();
    if (this.live >= limit) {
      this.hooks.processLimitReached?.(limit);
      fail(Errno.AGAIN, `process limit reached: ${limit} processes per sandbox (processes)`);
    }
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
    this.live += 1;
    process.onFinish(() => {
      this.live -= 1;
    });
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
    const program = process.program;
    if (process.pendingKill !== undefined || program === undefined) {
      process.end(process.pendingKill?.status ?? 1, process.pendingKill?.reason ?? 'crash');
      return;
    }
    process.state = 'running';
    void program.run(process, {
      memoryLimitBytes: this.hooks.memoryLimitBytes(),
      writeError: (text) => this.hooks.writeStderr(process, text),
      memoryLimitReached: () => this.hooks.memoryLimitReached?.(),
    });
  }

  private onExited(process: Process): void {
    this.hooks.onExit?.(process);
    // An ended process waits for nothing any more.
    this.childWaiters.delete(process.pid);
    const parent = process.ppid === 0 ? undefined : this.processes.get(process.ppid);
    if (parent === undefined || parent.state === 'exited') {
      // Nobody will wait for it: reap at once.
      this.reap(process);
    } else {
      this.childWaiters.get(parent.pid)?.wakeAll();
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
    let queue = this.childWaiters.get(parent.pid);
    if (queue === undefined) this.childWaiters.set(parent.pid, (queue = new WaitQueue('internal', 'wait for child')));
    return queue.wait();
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
    if (signal === SIGNALS.INT && target.interruptHandler !== undefined) {
      target.interruptHandler();
      target.blocker?.fail(new KernelError(Errno.INTR, 'interrupted by SIGINT'));
      return;
    }
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
      pgid: process.pgid,
      startMs: process.startedAt - this.bootTime,
      cpuMs: process.cpuMs(),
      memoryBytes: process.memoryBytes?.() ?? 0,
      terminal: [0, 1, 2].some((fd) => process.fds.has(fd) && process.fds.get(fd).isTerminal()),
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
