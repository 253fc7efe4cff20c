// System calls as a JS API, for processes whose code does not run as an asyncified wasm
// instance on the kernel thread (Python: Pyodide runs in its own Worker and sends its calls
// here, or inline on the kernel thread). The semantics are the WASI layer's: the same VFS,
// descriptors, pipes, limits, deadline and signals. A call that may wait exists twice over
// one body: `xSteps()` is a generator yielding each Blocker it waits on, `x()` runs it with
// awaits (a Promise), and `complete()`/`completeInline()` run any such body either way —
// inline Python waits by driving the scheduler in place (Scheduler.driveUntil). Errors are
// KernelErrors (WASI errnos; `linuxErrno` converts for callers that speak Linux numbers).

import { wasi } from '@bjorn3/browser_wasi_shim';
import { Errno, KernelError, fail } from '../errno.js';
import type { StatInfo } from '../wasi/description.js';
import { DirectoryDescription, DeviceDescription, FileDescription, statOf } from '../wasi/vfs-descriptions.js';
import { PipeReader, PipeWriter } from '../wasi/stream-descriptions.js';
import { callerOf } from '../wasi/wasi-imports.js';
import type { Inode } from '../vfs/inode.js';
import { nowNs } from '../vfs/inode.js';
import { normalizeAbsolute } from '../vfs/path.js';
import { ROOT_INO, isFdLink, type Vfs } from '../vfs/vfs.js';
import { Blocker, isBlocked, type MaybeBlocked } from './blocker.js';
import { DEADLINE_STATUS, ProcessKilled, SIGPIPE_STATUS } from './exit.js';
import { Pipe } from './pipe.js';
import type { Process } from './process.js';
import type { ProcessTable } from './process-table.js';
import type { Scheduler } from './scheduler.js';
import type { SpawnRequest } from './spawn-request.js';
import type { NetClient } from '../net/net-imports.js';
import type { NetHead, NetRequest } from '../../protocol/network.js';

export interface SyscallKernel {
  vfs: Vfs;
  scheduler: Scheduler;
  processes: ProcessTable;
  net: NetClient;
  spawnFor(parent: Process, request: SpawnRequest): number;
}

export interface OpenFlags {
  read?: boolean;
  write?: boolean;
  create?: boolean;
  exclusive?: boolean;
  truncate?: boolean;
  append?: boolean;
  directory?: boolean;
  noFollow?: boolean;
}

export interface FullStat extends StatInfo {
  kind: 'file' | 'dir' | 'symlink' | 'chardev' | 'fifo' | 'unknown';
}

/** A call that may wait: yields each wait, gets the wait's failure thrown into it. */
export type Waiting<T> = Generator<Blocker, T, void>;

const KIND_BY_FILETYPE: Record<number, FullStat['kind']> = {
  [wasi.FILETYPE_REGULAR_FILE]: 'file',
  [wasi.FILETYPE_DIRECTORY]: 'dir',
  [wasi.FILETYPE_SYMBOLIC_LINK]: 'symlink',
  [wasi.FILETYPE_CHARACTER_DEVICE]: 'chardev',
};

function fullStat(stat: StatInfo): FullStat {
  const fifo = (stat.mode & 0o170000) === 0o010000;
  return { ...stat, kind: fifo ? 'fifo' : KIND_BY_FILETYPE[stat.filetype] ?? 'unknown' };
}

export class ProcessSyscalls {
  constructor(
    private readonly kernel: SyscallKernel,
    readonly process: Process,
  ) {}

  private get vfs(): Vfs {
    return this.kernel.vfs;
  }

  /** Checks at the start of every call: pending kill, deadline. */
  private enter(): void {
    const process = this.process;
    if (process.pendingKill !== undefined) throw process.pendingKill;
    if (this.kernel.scheduler.pastDeadline(process)) throw new ProcessKilled(DEADLINE_STATUS, 'deadline');
  }

  private *retry<T>(operation: () => MaybeBlocked<T>): Waiting<T> {
    for (;;) {
      const result = operation();
      if (!isBlocked(result)) return result;
      yield result;
    }
  }

  /** Runs a waiting call, suspending (awaiting) at each wait. */
  async complete<T>(steps: Waiting<T>): Promise<T> {
    let step = steps.next();
    while (step.done !== true) {
      try {
        await this.kernel.scheduler.wait(this.process, step.value);
      } catch (error) {
        step = steps.throw(error);
        continue;
      }
      step = steps.next();
    }
    return step.value;
  }

  /**
   * Runs a waiting call to its end on this stack, running the other processes while it
   * waits (for a caller that cannot suspend: inline Python). A wait nothing in the sandbox
   * can end fails with EDEADLK.
   */
  completeInline<T>(steps: Waiting<T>): T {
    let step = steps.next();
    while (step.done !== true) {
      try {
        this.kernel.scheduler.driveUntil(this.process, step.value);
      } catch (error) {
        step = steps.throw(error);
        continue;
      }
      step = steps.next();
    }
    return step.value;
  }

  private resolve(path: string, follow = true): Inode {
    return this.vfs.resolve(this.process.cwdIno, path, follow, callerOf(this.process));
  }

  private absolute(path: string): string {
    return normalizeAbsolute(path, this.process.cwd);
  }

  // ---- descriptors -----------------------------------------------------------------------

  open(path: string, flags: OpenFlags, mode = 0o666): number {
    this.enter();
    let inode: Inode | undefined;
    try {
      inode = this.resolve(path, !flags.noFollow);
    } catch (error) {
      if (!(error instanceof KernelError) || error.errno !== Errno.NOENT || !flags.create) throw error;
    }
    if (inode !== undefined && flags.create && flags.exclusive) fail(Errno.EXIST, 'file exists');
    if (inode === undefined) {
      if (path.endsWith('/')) fail(Errno.ISDIR, 'is a directory');
      const { dir, name } = this.vfs.resolveParent(this.process.cwdIno, path, callerOf(this.process));
      inode = this.vfs.createFile(dir, name, callerOf(this.process), mode);
    }
    let description;
    if (isFdLink(inode)) {
      const owner = this.kernel.processes.get(inode.fdRef.pid);
      if (owner === undefined) fail(Errno.NOENT, 'no such process');
      description = owner.fds.get(inode.fdRef.fd);
    } else if (inode.kind === 'dir') {
      if (flags.write) fail(Errno.ISDIR, 'is a directory');
      description = new DirectoryDescription(this.vfs, inode.ino, this.absolute(path));
    } else if (inode.kind === 'file') {
      if (flags.directory) fail(Errno.NOTDIR, 'not a directory');
      if (flags.write && !inode.writable) fail(Errno.ROFS, 'read-only file system');
      description = new FileDescription(this.vfs, inode.ino, flags.read !== false, flags.write === true, this.absolute(path));
      if (flags.truncate && flags.write && inode.size > 0) this.vfs.truncate(inode.ino, 0);
      if (flags.append) description.fdflags |= wasi.FDFLAGS_APPEND;
    } else if (inode.kind === 'chardev') {
      description = new DeviceDescription(this.vfs, inode.ino, inode.device);
    } else {
      fail(Errno.LOOP, 'too many levels of symbolic links');
    }
    return this.process.fds.add(description, 0);
  }

  close(fd: number): void {
    this.process.fds.close(fd);
  }

  read(fd: number, max: number): Promise<Uint8Array> {
    return this.complete(this.readSteps(fd, max));
  }

  *readSteps(fd: number, max: number): Waiting<Uint8Array> {
    this.enter();
    const description = this.process.fds.get(fd);
    // Copy at once: a pipe may hand out a view of its buffer, which the writer may refill
    // before an awaiting caller resumes.
    return yield* this.retry(() => {
      const result = description.read(max);
      return isBlocked(result) ? result : result.slice();
    });
  }

  write(fd: number, data: Uint8Array): Promise<number> {
    return this.complete(this.writeSteps(fd, data));
  }

  *writeSteps(fd: number, data: Uint8Array): Waiting<number> {
    this.enter();
    const description = this.process.fds.get(fd);
    try {
      return yield* this.retry(() => description.write(data));
    } catch (error) {
      if (error instanceof KernelError && error.errno === Errno.PIPE && !this.process.ignoreSigpipe) throw new ProcessKilled(SIGPIPE_STATUS, 'sigpipe');
      throw error;
    }
  }

  seek(fd: number, offset: number, whence: 'set' | 'cur' | 'end'): number {
    const codes = { set: wasi.WHENCE_SET, cur: wasi.WHENCE_CUR, end: wasi.WHENCE_END };
    return Number(this.process.fds.get(fd).seek(BigInt(offset), codes[whence]));
  }

  fstat(fd: number): FullStat {
    return fullStat(this.process.fds.get(fd).stat());
  }

  ftruncate(fd: number, size: number): void {
    this.process.fds.get(fd).setSize(size);
  }

  isatty(fd: number): boolean {
    return this.process.fds.get(fd).isTerminal();
  }

  dup(fd: number, min = 0): number {
    return this.process.fds.add(this.process.fds.get(fd), min);
  }

  dup2(fd: number, target: number): number {
    if (fd !== target) this.process.fds.set(target, this.process.fds.get(fd));
    return target;
  }

  pipe(): [number, number] {
    const pipe = new Pipe();
    const readFd = this.process.fds.add(new PipeReader(pipe), 0);
    const writeFd = this.process.fds.add(new PipeWriter(pipe), 0);
    return [readFd, writeFd];
  }

  /**
   * Waits until at least one of `fds` can be read without waiting (data or end of file)
   * and returns those; `timeoutMs` undefined waits as long as it takes, 0 only looks.
   */
  pollRead(fds: number[], timeoutMs?: number): Promise<number[]> {
    return this.complete(this.pollReadSteps(fds, timeoutMs));
  }

  *pollReadSteps(fds: number[], timeoutMs?: number): Waiting<number[]> {
    this.enter();
    const descriptions = fds.map((fd) => [fd, this.process.fds.get(fd)] as const);
    for (;;) {
      const ready: number[] = [];
      const waits: Blocker[] = [];
      for (const [fd, description] of descriptions) {
        // A zero-byte read answers at once when data or EOF is there, and otherwise
        // returns the wait a real read would be in.
        const probe = description.read(0);
        if (isBlocked(probe)) waits.push(probe);
        else ready.push(fd);
      }
      if (ready.length > 0 || timeoutMs === 0) {
        for (const wait of waits) wait.wake();
        return ready;
      }
      const any = new Blocker(waits.some((wait) => wait.kind === 'external') || timeoutMs !== undefined ? 'external' : 'internal', 'poll');
      for (const wait of waits) wait.onSettle(() => any.wake());
      any.onSettle(() => {
        for (const wait of waits) wait.wake();
      });
      let timedOut = false;
      if (timeoutMs !== undefined) {
        this.kernel.scheduler.wakeAfter(any, timeoutMs, () => {
          timedOut = true;
        });
      }
      yield any;
      if (timedOut) return [];
    }
  }

  // ---- paths -----------------------------------------------------------------------------

  stat(path: string, follow = true): FullStat {
    this.enter();
    const inode = this.resolve(path, follow);
    if (isFdLink(inode) && follow) {
      const owner = this.kernel.processes.get(inode.fdRef.pid);
      if (owner === undefined) fail(Errno.NOENT, 'no such process');
      return fullStat(owner.fds.get(inode.fdRef.fd).stat());
    }
    return fullStat(statOf(this.vfs, inode));
  }

  readdir(path: string): Array<{ name: string; kind: FullStat['kind']; ino: number }> {
    this.enter();
    const inode = this.resolve(path);
    if (inode.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
    return this.vfs.list(inode, callerOf(this.process)).map(([name, child]) => ({ name, kind: child.kind, ino: child.ino }));
  }

  mkdir(path: string, mode = 0o777): void {
    this.enter();
    const { dir, name } = this.vfs.resolveParent(this.process.cwdIno, path, callerOf(this.process));
    this.vfs.mkdir(dir, name, callerOf(this.process), mode);
  }

  rmdir(path: string): void {
    this.enter();
    const { dir, name } = this.vfs.resolveParent(this.process.cwdIno, path, callerOf(this.process));
    this.vfs.rmdir(dir, name);
  }

  unlink(path: string): void {
    this.enter();
    const { dir, name } = this.vfs.resolveParent(this.process.cwdIno, path, callerOf(this.process));
    const inode = this.vfs.resolve(dir.ino, name, false, callerOf(this.process));
    if (inode.kind === 'dir') fail(Errno.ISDIR, 'is a directory');
    this.vfs.unlink(dir, name);
  }

  rename(from: string, to: string): void {
    this.enter();
    const a = this.vfs.resolveParent(this.process.cwdIno, from, callerOf(this.process));
    const b = this.vfs.resolveParent(this.process.cwdIno, to, callerOf(this.process));
    this.vfs.rename(a.dir, a.name, b.dir, b.name);
  }

  symlink(target: string, path: string): void {
    this.enter();
    const { dir, name } = this.vfs.resolveParent(this.process.cwdIno, path, callerOf(this.process));
    this.vfs.symlink(dir, name, target, callerOf(this.process));
  }

  readlink(path: string): string {
    const inode = this.resolve(path, false);
    if (inode.kind !== 'symlink') fail(Errno.INVAL, 'not a symbolic link');
    return inode.target;
  }

  chmod(path: string, mode: number): void {
    this.enter();
    this.vfs.chmod(this.resolve(path).ino, mode);
  }

  utimes(path: string, atimeMs: number | undefined, mtimeMs: number | undefined): void {
    this.enter();
    const toNs = (ms: number | undefined): bigint | undefined => (ms === undefined ? undefined : BigInt(Math.round(ms * 1e6)));
    this.vfs.setTimes(this.resolve(path).ino, toNs(atimeMs) ?? nowNs(), toNs(mtimeMs) ?? nowNs());
  }

  truncate(path: string, size: number): void {
    this.enter();
    this.vfs.truncate(this.resolve(path).ino, size);
  }

  getcwd(): string {
    return this.process.cwd;
  }

  chdir(path: string): void {
    const inode = this.resolve(path);
    if (inode.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
    this.process.cwd = this.absolute(path);
    this.process.cwdIno = inode.ino;
  }

  umask(mask?: number): number {
    const previous = this.process.umask;
    if (mask !== undefined) this.process.umask = mask & 0o777;
    return previous;
  }

  // ---- processes -------------------------------------------------------------------------

  spawn(request: SpawnRequest): number {
    this.enter();
    return this.kernel.spawnFor(this.process, request);
  }

  wait(pid: number, noHang = false): Promise<{ pid: number; status: number } | undefined> {
    return this.complete(this.waitSteps(pid, noHang));
  }

  *waitSteps(pid: number, noHang = false): Waiting<{ pid: number; status: number } | undefined> {
    this.enter();
    return yield* this.retry(() => this.kernel.processes.wait(this.process, pid, noHang));
  }

  kill(pid: number, signal: number): void {
    this.kernel.processes.kill(this.process, pid, signal);
  }

  sleep(ms: number): Promise<void> {
    return this.complete(this.sleepSteps(ms));
  }

  *sleepSteps(ms: number): Waiting<void> {
    this.enter();
    const blocker = new Blocker('external', 'sleep');
    const remaining = this.kernel.scheduler.remaining();
    this.kernel.scheduler.wakeAfter(blocker, remaining === undefined ? ms : Math.min(ms, remaining + 1));
    yield blocker;
    this.enter();
  }

  // ---- network (the host decides and performs; docs/abi.md "Network") ------------------------

  /** Hands `request` to the host; returns a handle for the answer. */
  netRequest(request: NetRequest): number {
    this.enter();
    return this.kernel.net.start(this.process, request);
  }

  /** Waits for the answer's head (a failure is a head with `ok: false`). */
  netResponse(handle: number): Promise<NetHead> {
    return this.complete(this.netResponseSteps(handle));
  }

  *netResponseSteps(handle: number): Waiting<NetHead> {
    this.enter();
    return yield* this.retry(() => this.kernel.net.headOf(this.process, handle));
  }

  /** The next piece of the body (at most `max` bytes); empty at the end. */
  netRead(handle: number, max: number): Promise<Uint8Array> {
    return this.complete(this.netReadSteps(handle, max));
  }

  *netReadSteps(handle: number, max: number): Waiting<Uint8Array> {
    this.enter();
    return yield* this.retry(() => {
      const result = this.kernel.net.bodyOf(this.process, handle, max);
      return isBlocked(result) ? result : result.slice();
    });
  }

  netClose(handle: number): void {
    this.kernel.net.release(this.process, handle);
  }

  /** Milliseconds before the run's deadline (undefined: none). */
  deadlineRemaining(): number | undefined {
    return this.kernel.scheduler.remaining();
  }

  /** The signal the process should act on now, if any (for interruptible runtimes). */
  pendingSignal(): number | undefined {
    const kill = this.process.pendingKill;
    return kill === undefined ? undefined : kill.status - 128;
  }

  get rootIno(): number {
    return ROOT_INO;
  }
}

/** Linux errno numbers for WASI ones (Emscripten and CPython speak Linux). */
export const LINUX_ERRNO: Record<number, number> = {
  [Errno.PERM]: 1, [Errno.NOENT]: 2, [Errno.SRCH]: 3, [Errno.INTR]: 4, [Errno.BADF]: 9, [Errno.CHILD]: 10,
  [Errno.AGAIN]: 11, [Errno.NOMEM]: 12, [Errno.ACCES]: 13, [Errno.FAULT]: 14, [Errno.EXIST]: 17, [Errno.XDEV]: 18,
  [Errno.NOTDIR]: 20, [Errno.ISDIR]: 21, [Errno.INVAL]: 22, [Errno.MFILE]: 24, [Errno.NOTTY]: 25, [Errno.FBIG]: 27,
  [Errno.NOSPC]: 28, [Errno.SPIPE]: 29, [Errno.ROFS]: 30, [Errno.PIPE]: 32, [Errno.DEADLK]: 35, [Errno.NAMETOOLONG]: 36,
  [Errno.NOSYS]: 38, [Errno.NOTEMPTY]: 39, [Errno.LOOP]: 40, [Errno.NOEXEC]: 8, [Errno.NOTSUP]: 95,
  [Errno.TIMEDOUT]: 110, [Errno.CONNREFUSED]: 111, [Errno.STALE]: 116, [Errno.NOBUFS]: 105,
};

export function linuxErrno(wasiErrno: number): number {
  return LINUX_ERRNO[wasiErrno] ?? 5;
}
