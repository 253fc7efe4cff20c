// The Python channel's adapter: the kernel side of a Python process's system calls (its own
// worker's channel, or inline Python's direct calls). Each request is checked and turned
// into the syscall core's call (sys/syscalls.ts), with paths relative to the working
// directory; no meaning lives here. The worker is untrusted like any process, so a
// malformed request is EINVAL, never a kernel fault.

import { Errno, KernelError, fail } from '../errno.js';
import { WHENCE } from '../fd/description.js';
import { ProcessKilled } from '../proc/exit.js';
import type { StatInfo } from '../fd/description.js';
import { AT_FDCWD, kindOf, type OpenFlags, type Syscalls, type TimeSpec } from '../sys/syscalls.js';
import type { Waiting } from '../fd/blocker.js';
import type { Process } from '../proc/process.js';
import type { PythonRequest, StartInfo, TopLevelEntry, WireStat } from './protocol.js';

export interface Served {
  value?: unknown;
  data?: Uint8Array;
}

const str = (value: unknown, what: string): string => {
  if (typeof value !== 'string') fail(Errno.INVAL, `${what}: not a string`);
  return value;
};
const int = (value: unknown, what: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(Errno.INVAL, `${what}: not a number`);
  const whole = Math.trunc(value);
  // Beyond 2^53 a double is not the integer Python meant (BigInt() of it would lie too).
  if (!Number.isSafeInteger(whole)) fail(Errno.INVAL, `${what}: out of range`);
  return whole;
};
const strings = (value: unknown, what: string): string[] => {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) fail(Errno.INVAL, `${what}: not a list of strings`);
  return value as string[];
};

function wireStat(stat: StatInfo): WireStat {
  return {
    kind: kindOf(stat), ino: Number(stat.ino), mode: stat.mode, nlink: Number(stat.nlink), uid: stat.uid, gid: stat.gid,
    size: Number(stat.size), atimeMs: Number(stat.atimeNs / 1000000n), mtimeMs: Number(stat.mtimeNs / 1000000n),
    ctimeMs: Number(stat.ctimeNs / 1000000n), dev: Number(stat.dev),
  };
}

function openFlags(value: unknown): OpenFlags {
  if (typeof value !== 'object' || value === null) fail(Errno.INVAL, 'open flags');
  const flags = value as Record<string, unknown>;
  const pick = (name: 'write' | 'create' | 'exclusive' | 'truncate' | 'append' | 'directory' | 'noFollow'): boolean => flags[name] === true;
  return {
    read: flags.read !== false, write: pick('write'), create: pick('create'), exclusive: pick('exclusive'),
    truncate: pick('truncate'), append: pick('append'), directory: pick('directory'), noFollow: pick('noFollow'),
  };
}

/** Python's times (ms, absent: now) as the core's. */
function timeOf(ms: number | null | undefined): TimeSpec {
  return typeof ms === 'number' && Number.isFinite(ms) ? BigInt(Math.round(ms * 1e6)) : 'now';
}

/**
 * Serves the file, process and network calls. `ready`, `exit`, `fatal` and
 * `snapshotPart` belong to the worker's life and are handled by the caller.
 */
export function serveSyscall(sys: Syscalls, request: PythonRequest, data: Uint8Array | undefined): Promise<Served> {
  return sys.complete(serveSteps(sys, request, data));
}

/** serveSyscall() for a caller on the kernel thread that cannot suspend (inline Python). */
export function serveSyscallInline(sys: Syscalls, request: PythonRequest, data: Uint8Array | undefined): Served {
  return sys.completeInline(serveSteps(sys, request, data));
}

function* serveSteps(sys: Syscalls, request: PythonRequest, data: Uint8Array | undefined): Waiting<Served> {
  switch (request.op) {
    case 'open':
      return { value: sys.openat(AT_FDCWD, str(request.path, 'path'), openFlags(request.flags), int(request.mode, 'mode')) };
    case 'close':
      sys.close(int(request.fd, 'fd'));
      return {};
    case 'read': {
      const fd = int(request.fd, 'fd');
      const max = Math.max(0, int(request.max, 'max'));
      if (request.position === undefined || request.position === null) return { data: (yield* sys.read(fd, max)).slice() };
      return { data: yield* sys.pread(fd, max, int(request.position, 'position')) };
    }
    case 'write': {
      const position = request.position === undefined || request.position === null ? undefined : int(request.position, 'position');
      return { value: yield* sys.writeAll(int(request.fd, 'fd'), data ?? new Uint8Array(0), position) };
    }
    case 'seek': {
      const whence = request.whence === 'cur' ? WHENCE.CUR : request.whence === 'end' ? WHENCE.END : WHENCE.SET;
      return { value: Number(sys.seek(int(request.fd, 'fd'), BigInt(int(request.offset, 'offset')), whence)) };
    }
    case 'fstat':
      return { value: wireStat(sys.fstat(int(request.fd, 'fd'))) };
    case 'ftruncate':
      sys.ftruncate(int(request.fd, 'fd'), int(request.size, 'size'));
      return {};
    case 'isatty':
      return { value: sys.isatty(int(request.fd, 'fd')) };
    case 'stat':
      return { value: wireStat(sys.statat(AT_FDCWD, str(request.path, 'path'), request.follow === true)) };
    case 'readdir':
      return { value: sys.listdir(AT_FDCWD, str(request.path, 'path')).map((entry) => entry.name) };
    case 'mkdir':
      sys.mkdirat(AT_FDCWD, str(request.path, 'path'), int(request.mode, 'mode'));
      return {};
    case 'rmdir':
      sys.rmdirat(AT_FDCWD, str(request.path, 'path'));
      return {};
    case 'unlink':
      sys.unlinkat(AT_FDCWD, str(request.path, 'path'));
      return {};
    case 'rename':
      sys.renameat(AT_FDCWD, str(request.from, 'from'), AT_FDCWD, str(request.to, 'to'));
      return {};
    case 'symlink':
      sys.symlinkat(str(request.target, 'target'), AT_FDCWD, str(request.path, 'path'));
      return {};
    case 'readlink':
      return { value: sys.readlinkat(AT_FDCWD, str(request.path, 'path')) };
    case 'chmod':
      sys.chmodat(AT_FDCWD, str(request.path, 'path'), int(request.mode, 'mode'));
      return {};
    case 'utimes':
      sys.utimensat(AT_FDCWD, str(request.path, 'path'), timeOf(request.atimeMs), timeOf(request.mtimeMs));
      return {};
    case 'truncate':
      sys.truncateat(AT_FDCWD, str(request.path, 'path'), int(request.size, 'size'));
      return {};
    case 'chdir':
      sys.chdir(str(request.path, 'path'));
      return {};
    case 'umask':
      return { value: sys.umask(request.mask === undefined || request.mask === null ? undefined : int(request.mask, 'mask')) };
    case 'pipe':
      return { value: sys.pipe() };
    case 'poll': {
      const fds = Array.isArray(request.fds) ? request.fds.map((fd) => int(fd, 'fd')) : fail(Errno.INVAL, 'fds');
      const timeout = request.timeoutMs === undefined || request.timeoutMs === null ? undefined : Math.max(0, int(request.timeoutMs, 'timeout'));
      return { value: yield* sys.pollRead(fds, timeout) };
    }
    case 'spawn': {
      const spawn = request.request;
      if (typeof spawn !== 'object' || spawn === null || !Array.isArray(spawn.fds)) fail(Errno.INVAL, 'spawn request');
      const pid = sys.spawn({
        ignoreSigpipe: false,
        newGroup: spawn.newGroup === true,
        program: str(spawn.program, 'program'),
        argv: strings(spawn.argv, 'argv'),
        env: strings(spawn.env, 'env'),
        cwd: str(spawn.cwd, 'cwd'),
        fds: spawn.fds.map((pair) => ({ childFd: int(pair[0], 'fd'), parentFd: int(pair[1], 'fd') })),
        blob: new Uint8Array(0),
      });
      return { value: pid };
    }
    case 'wait':
      return { value: (yield* sys.wait(int(request.pid, 'pid'), request.noHang === true)) ?? null };
    case 'kill':
      sys.kill(int(request.pid, 'pid'), int(request.signal, 'signal'));
      return {};
    case 'sleep':
      yield* sys.sleep(Math.max(0, int(request.ms, 'ms')));
      return {};
    case 'deadline':
      return { value: sys.deadlineRemaining() ?? null };
    case 'netRequest': {
      const net = request.request;
      if (typeof net !== 'object' || net === null || !Array.isArray(net.headers)) fail(Errno.INVAL, 'network request');
      const handle = sys.net.request({
        method: str(net.method, 'method'),
        url: str(net.url, 'url'),
        headers: net.headers.map((pair) => [str(pair[0], 'header'), str(pair[1], 'header')] as [string, string]),
        body: data !== undefined && data.length > 0 ? data : undefined,
        followRedirects: net.followRedirects === true,
        timeoutMs: int(net.timeoutMs, 'timeout'),
      });
      return { value: handle };
    }
    case 'netResponse':
      return { value: yield* sys.net.response(int(request.handle, 'handle')) };
    case 'netRead':
      return { data: (yield* sys.net.read(int(request.handle, 'handle'), Math.max(1, int(request.max, 'max')))).slice() };
    case 'netClose':
      sys.net.close(int(request.handle, 'handle'));
      return {};
    default:
      fail(Errno.NOSYS, `unknown python system call ${String((request as { op?: unknown }).op)}`);
  }
}

/** A failure Python is told about (an errno) or that ends it (a kill); anything else is a kernel fault. */
export function asPythonError(error: unknown): KernelError | ProcessKilled {
  if (error instanceof KernelError || error instanceof ProcessKilled) return error;
  throw error;
}

/** What a Python worker is told when it becomes `process` (protocol.ts). */
export function startInfo(process: Process, sys: Syscalls): StartInfo {
  return {
    argv: process.argv, env: process.env, cwd: process.cwd, pid: process.pid, ppid: process.ppid,
    tty: [0, 1, 2].map((fd) => safeIsatty(sys, fd)) as [boolean, boolean, boolean],
    interruptible: true,
    memoryBytes: sys.memoryLimitBytes(),
    topLevel: topLevelListing(sys),
  };
}

/** The root's names with their kinds (a name removed meanwhile is left out). */
function topLevelListing(sys: Syscalls): TopLevelEntry[] {
  const entries: TopLevelEntry[] = [];
  for (const { name } of sys.listdir(AT_FDCWD, '/')) {
    try {
      const kind = kindOf(sys.statat(AT_FDCWD, `/${name}`, false));
      entries.push({ name, kind, target: kind === 'symlink' ? sys.readlinkat(AT_FDCWD, `/${name}`) : undefined });
    } catch (error) {
      if (!(error instanceof KernelError)) throw error;
    }
  }
  return entries;
}

/** Whether `fd` is a terminal; false when the fd is not open (the answer a start-up needs). */
export function safeIsatty(sys: Syscalls, fd: number): boolean {
  try {
    return sys.isatty(fd);
  } catch {
    return false;
  }
}

/** Writes a python3 message to stderr; a closed or killed stderr is not an error here. */
export async function writeError(sys: Syscalls, text: string): Promise<void> {
  try {
    await sys.complete(sys.writeAll(2, new TextEncoder().encode(text)));
  } catch (error) {
    if (!(error instanceof KernelError) && !(error instanceof ProcessKilled)) throw error;
  }
}
