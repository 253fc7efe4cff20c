// The syscall core: what every system call of a process means, written once. The ABIs only
// marshal to and from these calls — WASI preview1 (abi/wasi-preview1.ts) and the `airlock`
// module (abi/airlock.ts) for asyncified wasm, the channel of a Python worker or inline
// Python (python/syscall-server.ts) — and so will any later runner (foreign WASI programs in
// their own worker): a meaning changed here changes for all of them.
//
// Conventions:
// - paths are relative to a directory descriptor `at` (as in openat(2)), or to the working
//   directory with AT_FDCWD;
// - numbers are the kernel's, which are WASI's: errnos (KernelError), filetypes, fdflags,
//   whence; times are nanoseconds;
// - every call starts by checking the process may go on (a pending kill, the deadline);
// - a call that may wait returns a Waiting<T> generator (sys/waiting.ts), which the caller's
//   driver runs: read, write, pread, wait, sleep, pollRead, yieldTurn, net.response, net.read.

import { Errno, KernelError, fail } from '../errno.js';
import { Blocker, done, retry, type Waiting } from '../fd/blocker.js';
import { FDFLAG, WHENCE, type Description, type StatInfo } from '../fd/description.js';
import { Pipe } from '../fd/pipe.js';
import { PipeReader, PipeWriter } from '../fd/stream-descriptions.js';
import { DeviceDescription, DirectoryDescription, FileDescription, randomBytes, statOf } from '../fd/vfs-descriptions.js';
import type { NetClient } from '../net/net-client.js';
import { ProcessExit, ProcessKilled, SIGPIPE_STATUS } from '../proc/exit.js';
import type { Process } from '../proc/process.js';
import type { Scheduler } from '../proc/scheduler.js';
import type { VfsCaller } from '../vfs/caller.js';
import type { Inode } from '../vfs/inode.js';
import type { Tty, TtySize } from '../fd/tty.js';
import { nowNs } from '../vfs/inode.js';
import { normalizeAbsolute } from '../vfs/path.js';
import { isFdLink, type Vfs } from '../vfs/vfs.js';
import { NetCalls } from './net-calls.js';
import { openInode, type OpenFlags } from './open.js';
import { pollReadable } from './poll.js';
import { reportRefusal } from './refusal.js';
import { KIND_BY_FILETYPE, type DirectoryEntry } from './stat.js';
import { spawnChild, type Launcher, type SpawnRequest } from './spawn.js';
import { complete, completeInline } from './waiting.js';

export type { OpenFlags } from './open.js';
export type { DirectoryEntry, FileKind } from './stat.js';
export { kindOf } from './stat.js';

/** `at` for paths relative to the working directory. */
export const AT_FDCWD = -100;

/** What the core needs of the kernel. */
export interface SyscallKernel extends Launcher {
  readonly scheduler: Scheduler;
  readonly net: NetClient;
  /** The run timeout, for network requests made when there is no deadline. */
  readonly defaultTimeoutMs: number;
  /** A description of the session's terminal (/dev/tty); undefined when the run has none. */
  controllingTerminal?(): Description | undefined;
  /** Stops the run's clock until the returned function is called (Kernel.holdDeadline). */
  holdDeadline?(): () => void;
}

/** A time to set: nanoseconds, now, or leave it as it is. */
export type TimeSpec = bigint | 'now' | 'omit';

/** The VFS caller a process is: its pid (for /proc/self), its umask, the sandbox user. */
export function callerOf(process: Process): VfsCaller {
  return { pid: process.pid, umask: process.umask, uid: 1000, gid: 1000 };
}

/** The system calls of one process. */
export class Syscalls {
  constructor(
    private readonly kernel: SyscallKernel,
    readonly process: Process,
  ) {}

  private get vfs(): Vfs {
    return this.kernel.vfs;
  }

  private get caller(): VfsCaller {
    return callerOf(this.process);
  }

  private netCalls: NetCalls | undefined;

  /** The network calls (sys/net-calls.ts): the host decides and performs them. */
  get net(): NetCalls {
    return (this.netCalls ??= new NetCalls(this.kernel.net, this.kernel.defaultTimeoutMs, this.process, this));
  }

  /** Runs a waiting call, awaiting each wait (for callers on the kernel thread that can await). */
  complete<T>(steps: Waiting<T>): Promise<T> {
    return complete(this.kernel.scheduler, this.process, steps);
  }

  /** Runs a waiting call in place, running the other processes meanwhile (inline Python). */
  completeInline<T>(steps: Waiting<T>): T {
    return completeInline(this.kernel.scheduler, this.process, steps);
  }

  /** Checks at the start of every call: a pending kill or the deadline end the process. */
  enter(): void {
    this.kernel.scheduler.checkAlive(this.process);
  }

  /** The inode paths relative to `at` start from. */
  private startOf(at: number): number {
    if (at === AT_FDCWD) return this.process.cwdIno;
    const description = this.process.fds.get(at);
    if (!(description instanceof DirectoryDescription)) fail(Errno.NOTDIR, 'not a directory');
    return description.ino;
  }

  /** The absolute path `path` relative to `at` names (what /proc/<pid>/fd shows). */
  private absolute(at: number, path: string): string {
    if (at === AT_FDCWD) return normalizeAbsolute(path, this.process.cwd);
    const description = this.process.fds.get(at);
    return normalizeAbsolute(path, description instanceof DirectoryDescription ? description.path : '/');
  }

  private resolve(at: number, path: string, follow: boolean): Inode {
    return this.vfs.resolve(this.startOf(at), path, follow, this.caller);
  }

  private parentOf(at: number, path: string): ReturnType<Vfs['resolveParent']> {
    return this.vfs.resolveParent(this.startOf(at), path, this.caller);
  }

  /** Runs a change to the filesystem, telling the kernel if it is refused (sys/refusal.ts). */
  private changing<T>(path: string, change: () => T): T {
    try {
      return change();
    } catch (error) {
      reportRefusal(error, path, this.kernel.refused?.bind(this.kernel));
      throw error;
    }
  }

  /** The description a /proc/<pid>/fd link stands for. */
  private linked(inode: Inode): Description {
    if (!isFdLink(inode)) fail(Errno.INVAL, 'not a descriptor link');
    const owner = this.kernel.processes.get(inode.fdRef.pid);
    if (owner === undefined) fail(Errno.NOENT, 'no such process');
    return owner.fds.get(inode.fdRef.fd);
  }

  // ---- the process itself --------------------------------------------------------------

  argv(): string[] {
    return this.process.argv;
  }

  environ(): string[] {
    return this.process.env;
  }

  /** Clock `id` (0 realtime, 1 monotonic, 2 process CPU, 3 thread CPU) in nanoseconds. */
  clock(id: number): bigint {
    if (id === 0) return nowNs();
    if (id === 1) return BigInt(Math.round(performance.now() * 1e6));
    if (id === 2 || id === 3) return BigInt(Math.round((performance.now() - this.process.startedAt) * 1e6));
    fail(Errno.INVAL, 'unknown clock');
  }

  random(length: number): Uint8Array {
    return randomBytes(length);
  }

  exit(code: number): never {
    throw new ProcessExit(code);
  }

  getcwd(): string {
    return this.process.cwd;
  }

  chdir(path: string): void {
    this.enter();
    const inode = this.resolve(AT_FDCWD, path, true);
    if (inode.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
    this.process.cwd = this.absolute(AT_FDCWD, path);
    this.process.cwdIno = inode.ino;
  }

  /** Sets the umask (undefined: only reads it); returns the previous one. */
  umask(mask?: number): number {
    const previous = this.process.umask;
    if (mask !== undefined) this.process.umask = mask & 0o777;
    return previous;
  }

  /** Milliseconds before the run's deadline (undefined: none). */
  deadlineRemaining(): number | undefined {
    return this.kernel.scheduler.remaining();
  }

  /**
   * Stops the run's clock (the deadline and the host's hard kill) until the returned
   * function is called: for waits that are the sandbox's, not the program's — Python's
   * interpreter loading.
   */
  holdDeadline(): () => void {
    return this.kernel.holdDeadline?.() ?? (() => undefined);
  }

  /** The sandbox's per-process memory limit (memoryBytes), for programs that grow memory themselves (Python). */
  memoryLimitBytes(): number {
    return this.kernel.processes.memoryBytes();
  }

  /** Filesystem capacity and usage (df). */
  fsStats(): { limitBytes: number; usedBytes: number; limitFiles: number; usedFiles: number } {
    const { usage, limits } = this.vfs.meter;
    return { limitBytes: limits.fsBytes, usedBytes: usage.bytes, limitFiles: limits.fileCount, usedFiles: usage.inodes };
  }

  // ---- descriptors ---------------------------------------------------------------------

  /** open(2): the new descriptor (the lowest free one). The rules are sys/open.ts's. */
  openat(at: number, path: string, flags: OpenFlags, mode = 0o666): number {
    this.enter();
    const inode = this.changing(path, () => openInode(this.vfs, this.caller, this.startOf(at), path, flags, mode));
    let description: Description;
    if (isFdLink(inode)) description = this.linked(inode);
    else if (inode.kind === 'dir') description = new DirectoryDescription(this.vfs, inode.ino, this.absolute(at, path));
    else if (inode.kind === 'file') description = new FileDescription(this.vfs, inode.ino, flags.read !== false, flags.write === true, this.absolute(at, path));
    else if (inode.kind === 'chardev' && inode.device === 'tty') description = this.kernel.controllingTerminal?.() ?? fail(Errno.NXIO, 'no controlling terminal');
    else if (inode.kind === 'chardev') description = new DeviceDescription(this.vfs, inode.ino, inode.device);
    else fail(Errno.LOOP, 'too many levels of symbolic links');
    if (!isFdLink(inode)) description.fdflags = fdflagsOf(flags);
    return this.process.fds.add(description, 0);
  }

  close(fd: number): void {
    this.enter();
    this.process.fds.close(fd);
  }

  /**
   * Reads up to `max` bytes (empty at the end). The bytes may be a view of a pipe's buffer,
   * valid until the next operation on it: a caller that keeps them past a wait copies them.
   */
  read(fd: number, max: number): Waiting<Uint8Array> {
    this.enter();
    const description = this.process.fds.get(fd);
    if (max === 0) return done(new Uint8Array(0));
    return retry(() => description.read(max));
  }

  /**
   * Writes some of `data` (at least one byte unless it is empty), waiting for room. EPIPE
   * ends the process with status 141 (SIGPIPE) unless it ignores SIGPIPE.
   */
  write(fd: number, data: Uint8Array): Waiting<number> {
    this.enter();
    const description = this.process.fds.get(fd);
    if (data.length === 0) return done(0);
    return this.brokenPipeKills(description, retry(() => description.write(data)));
  }

  private *brokenPipeKills<T>(description: Description, steps: Waiting<T>): Waiting<T> {
    try {
      return yield* steps;
    } catch (error) {
      if (isBrokenPipe(error) && !this.process.ignoreSigpipe) throw new ProcessKilled(SIGPIPE_STATUS, 'sigpipe');
      reportRefusal(error, description.label(), this.kernel.refused?.bind(this.kernel));
      throw error;
    }
  }

  /** pread(2): reads at `position` without moving the descriptor's offset. */
  *pread(fd: number, max: number, position: number): Waiting<Uint8Array> {
    const saved = this.seek(fd, 0n, WHENCE.CUR);
    this.seek(fd, BigInt(position), WHENCE.SET);
    try {
      // A copy: the offset is restored before the caller sees the bytes.
      return (yield* this.read(fd, max)).slice();
    } finally {
      this.process.fds.get(fd).seek(saved, WHENCE.SET);
    }
  }

  /**
   * Writes all of `data` as a blocking write does (a pipe may take it in pieces); at
   * `position` without moving the offset when given. Short only if a piece fails after
   * others were written.
   */
  *writeAll(fd: number, data: Uint8Array, position?: number): Waiting<number> {
    const saved = position === undefined ? undefined : this.seek(fd, 0n, WHENCE.CUR);
    if (position !== undefined) this.seek(fd, BigInt(position), WHENCE.SET);
    try {
      let written = 0;
      while (written < data.length) {
        try {
          written += yield* this.write(fd, data.subarray(written));
        } catch (error) {
          if (written > 0 && error instanceof KernelError) break;
          throw error;
        }
      }
      return written;
    } finally {
      if (saved !== undefined) this.process.fds.get(fd).seek(saved, WHENCE.SET);
    }
  }

  seek(fd: number, offset: bigint, whence: number): bigint {
    this.enter();
    return this.process.fds.get(fd).seek(offset, whence);
  }

  tell(fd: number): bigint {
    this.enter();
    return this.process.fds.get(fd).tell();
  }

  fstat(fd: number): StatInfo {
    this.enter();
    return this.process.fds.get(fd).stat();
  }

  /** The descriptor's filetype, flags (WASI fdflags) and rights. */
  fdstat(fd: number): { filetype: number; flags: number; rights: bigint } {
    this.enter();
    const description = this.process.fds.get(fd);
    return { filetype: description.filetype(), flags: description.fdflags, rights: description.rights() };
  }

  /** Sets the descriptor's APPEND and NONBLOCK flags (WASI fdflags; others are ignored). */
  setFdFlags(fd: number, flags: number): void {
    this.enter();
    this.process.fds.get(fd).fdflags = flags & (FDFLAG.APPEND | FDFLAG.NONBLOCK);
  }

  ftruncate(fd: number, size: number): void {
    this.enter();
    const description = this.process.fds.get(fd);
    this.changing(description.label(), () => description.setSize(size));
  }

  /** posix_fallocate: a regular file grows to cover the range; others need nothing. */
  fallocate(fd: number, offset: number, length: number): void {
    this.enter();
    const description = this.process.fds.get(fd);
    if (description instanceof FileDescription && offset + length > Number(description.stat().size)) this.changing(description.label(), () => description.setSize(offset + length));
  }

  futimens(fd: number, atime: TimeSpec, mtime: TimeSpec): void {
    this.enter();
    const description = this.process.fds.get(fd);
    if (!(description instanceof FileDescription) && !(description instanceof DirectoryDescription)) fail(Errno.BADF, 'not a file or directory');
    this.changing(description.label(), () => this.setTimes(description.ino, atime, mtime));
  }

  /** fsync, fdatasync, fadvise: nothing to do but check the descriptor. */
  sync(fd: number): void {
    this.enter();
    this.process.fds.get(fd);
  }

  isatty(fd: number): boolean {
    this.enter();
    return this.process.fds.get(fd).isTerminal();
  }

  // ---- the terminal (fd/tty.ts; termios's mode flags and TIOCGWINSZ, simplified) ----------

  private ttyOf(fd: number): Tty {
    this.enter();
    return this.process.fds.get(fd).tty() ?? fail(Errno.NOTTY, 'not a terminal');
  }

  /** The terminal's mode flags (TTY_ICANON, TTY_ECHO, TTY_ISIG). ENOTTY: `fd` is not one. */
  ttyGetMode(fd: number): number {
    return this.ttyOf(fd).flags;
  }

  /** Sets the mode flags; restored when this process exits or the run ends. */
  ttySetMode(fd: number, flags: number): void {
    this.ttyOf(fd).setFlags(flags, this.process.pid);
  }

  /** The terminal's size in character cells. */
  ttySize(fd: number): TtySize {
    return this.ttyOf(fd).size;
  }

  /**
   * The name of the preopened directory `fd` is, undefined when it is not a preopen, null
   * when it is not open. Not a BADF thrown: every WASI process's start-up asks fd after fd
   * until one is not open (twice: wasi-libc's constructors run for airlock_alloc and again
   * in _start), and an exception per process cost more than the rest of the call.
   */
  preopen(fd: number): string | undefined | null {
    this.enter();
    if (!this.process.fds.has(fd)) return null;
    const description = this.process.fds.get(fd);
    return description instanceof DirectoryDescription ? description.preopenName : undefined;
  }

  /**
   * Opens directory `path` as a new descriptor that a WASI program given it sees as the
   * preopened directory `name` (wasi-run's --dir DIR::NAME, like wasmtime's).
   */
  openPreopen(path: string, name: string): number {
    this.enter();
    const inode = this.resolve(AT_FDCWD, path, true);
    if (inode.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
    return this.process.fds.add(new DirectoryDescription(this.vfs, inode.ino, this.absolute(AT_FDCWD, path), name), 0);
  }

  /**
   * Up to `max` entries of directory descriptor `fd` from position `cookie` on, `.` and `..`
   * first. The listing is taken at cookie 0 and kept, so later cookies stay valid. Readers
   * page a bufferful at a time (Rust's std: 128 bytes), so a call costs only what it returns.
   */
  getdents(fd: number, cookie: number, max = Number.POSITIVE_INFINITY): DirectoryEntry[] {
    this.enter();
    const description = this.process.fds.get(fd);
    if (!(description instanceof DirectoryDescription)) fail(Errno.NOTDIR, 'not a directory');
    if (cookie === 0 || description.listing === undefined) description.listing = description.list(this.caller);
    const page = description.listing.slice(cookie, cookie + max);
    return page.map(({ name, ino, filetype }) => ({ name, ino, kind: KIND_BY_FILETYPE[filetype] ?? 'unknown', filetype }));
  }

  dup(fd: number, min = 0): number {
    this.enter();
    return this.process.fds.add(this.process.fds.get(fd), min);
  }

  dup2(fd: number, target: number): number {
    this.enter();
    const description = this.process.fds.get(fd);
    if (fd !== target) this.process.fds.set(target, description);
    return target;
  }

  /** A pipe: [read end, write end]. */
  pipe(): [number, number] {
    this.enter();
    const pipe = new Pipe();
    const readFd = this.process.fds.add(new PipeReader(pipe), 0);
    const writeFd = this.process.fds.add(new PipeWriter(pipe), 0);
    return [readFd, writeFd];
  }

  /**
   * Waits until at least one of `fds` can be read without waiting (data or end of file)
   * and returns those; `timeoutMs` undefined waits as long as it takes, 0 only looks.
   */
  pollRead(fds: number[], timeoutMs?: number): Waiting<number[]> {
    this.enter();
    return pollReadable(this.kernel.scheduler, fds.map((fd) => [fd, this.process.fds.get(fd)] as const), timeoutMs);
  }

  // ---- paths ---------------------------------------------------------------------------

  statat(at: number, path: string, follow: boolean): StatInfo {
    this.enter();
    const inode = this.resolve(at, path, follow);
    if (isFdLink(inode) && follow) return this.linked(inode).stat();
    return statOf(this.vfs, inode);
  }

  /** The names in directory `path` (without `.` and `..`). */
  listdir(at: number, path: string): DirectoryEntry[] {
    this.enter();
    const inode = this.resolve(at, path, true);
    if (inode.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
    return this.vfs.list(inode, this.caller).map(([name, child]) => {
      const filetype = statOf(this.vfs, child).filetype;
      return { name, ino: child.ino, filetype, kind: KIND_BY_FILETYPE[filetype] ?? 'unknown' };
    });
  }

  mkdirat(at: number, path: string, mode = 0o777): void {
    this.enter();
    const { dir, name } = this.parentOf(at, path);
    this.changing(path, () => this.vfs.mkdir(dir, name, this.caller, mode));
  }

  rmdirat(at: number, path: string): void {
    this.enter();
    const { dir, name } = this.parentOf(at, path);
    this.changing(path, () => this.vfs.rmdir(dir, name));
  }

  /** unlink(2): a directory is EISDIR; `name/` must be a directory (then EISDIR too). */
  unlinkat(at: number, path: string): void {
    this.enter();
    const { dir, name } = this.parentOf(at, path);
    if (path.endsWith('/')) {
      const inode = this.resolve(at, path, true);
      fail(inode.kind === 'dir' ? Errno.ISDIR : Errno.NOTDIR, 'not a file');
    }
    this.changing(path, () => this.vfs.unlink(dir, name));
  }

  /** rename(2); a trailing slash on either side requires the source to be a directory. */
  renameat(fromAt: number, from: string, toAt: number, to: string): void {
    this.enter();
    const source = this.parentOf(fromAt, from);
    const target = this.parentOf(toAt, to);
    if ((from.endsWith('/') || to.endsWith('/')) && this.resolve(fromAt, from.replace(/\/+$/, '') || '/', false).kind !== 'dir') {
      fail(Errno.NOTDIR, 'not a directory');
    }
    this.changing(from, () => this.vfs.rename(source.dir, source.name, target.dir, target.name));
  }

  symlinkat(target: string, at: number, path: string): void {
    this.enter();
    const { dir, name } = this.parentOf(at, path);
    this.changing(path, () => this.vfs.symlink(dir, name, target, this.caller));
  }

  readlinkat(at: number, path: string): string {
    this.enter();
    const inode = this.resolve(at, path, false);
    if (inode.kind !== 'symlink') fail(Errno.INVAL, 'not a symbolic link');
    return inode.target;
  }

  chmodat(at: number, path: string, mode: number, follow = true): void {
    this.enter();
    const inode = this.resolve(at, path, follow);
    if (inode.kind === 'symlink') fail(Errno.NOTSUP, 'cannot change the mode of a symbolic link');
    this.changing(path, () => this.vfs.chmod(inode.ino, mode));
  }

  utimensat(at: number, path: string, atime: TimeSpec, mtime: TimeSpec, follow = true): void {
    this.enter();
    const inode = this.resolve(at, path, follow);
    this.changing(path, () => this.setTimes(inode.ino, atime, mtime));
  }

  truncateat(at: number, path: string, size: number): void {
    this.enter();
    const inode = this.resolve(at, path, true);
    this.changing(path, () => this.vfs.truncate(inode.ino, size));
  }

  private setTimes(ino: number, atime: TimeSpec, mtime: TimeSpec): void {
    const now = nowNs();
    const value = (time: TimeSpec): bigint | undefined => (time === 'now' ? now : time === 'omit' ? undefined : time);
    this.vfs.setTimes(ino, value(atime), value(mtime));
  }

  // ---- processes -----------------------------------------------------------------------

  spawn(request: SpawnRequest): number {
    this.enter();
    return spawnChild(this.kernel, this.process, this.caller, request).pid;
  }

  /** Waits for child `pid` (-1: any); undefined with `noHang` when none has ended. */
  wait(pid: number, noHang = false): Waiting<{ pid: number; status: number } | undefined> {
    this.enter();
    return retry(() => this.kernel.processes.wait(this.process, pid, noHang));
  }

  /** Sends `signal`; a process that signals itself (or its group) ends at once. */
  kill(pid: number, signal: number): void {
    this.enter();
    this.kernel.processes.kill(this.process, pid, signal);
    this.enter();
  }

  sleep(ms: number): Waiting<void> {
    return this.sleepUntil(performance.now() + Math.max(0, ms));
  }

  /**
   * Sleeps until the monotonic clock (performance.now(), ms) reaches `at`. Timers may fire
   * a little early (they round to whole milliseconds): it sleeps again for the rest, so a
   * sleep is never short.
   */
  *sleepUntil(at: number): Waiting<void> {
    this.enter();
    for (let delay = at - performance.now(); delay > 0; delay = at - performance.now()) {
      const blocker = new Blocker('external', 'sleep');
      this.kernel.scheduler.wakeAfter(blocker, Math.ceil(delay));
      yield blocker;
    }
  }

  /** sched_yield: lets the host and the other processes have a turn. */
  *yieldTurn(): Waiting<void> {
    this.enter();
    yield this.kernel.scheduler.yieldTurn();
  }
}

function fdflagsOf(flags: OpenFlags): number {
  return (flags.append === true ? FDFLAG.APPEND : 0) | (flags.nonBlock === true ? FDFLAG.NONBLOCK : 0);
}

function isBrokenPipe(error: unknown): boolean {
  return error instanceof KernelError && error.errno === Errno.PIPE;
}
