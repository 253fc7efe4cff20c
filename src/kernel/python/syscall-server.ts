// The kernel side of a Python worker's system calls: each request from the channel is
// checked and carried out with the process's ProcessSyscalls. The worker is untrusted like
// any process, so a malformed request is EINVAL, never a kernel fault.

import { Errno, KernelError, fail } from '../errno.js';
import { ProcessKilled } from '../proc/exit.js';
import type { FullStat, OpenFlags, ProcessSyscalls, Waiting } from '../proc/process-syscalls.js';
import { SPAWN_FLAG_NEW_GROUP } from '../proc/spawn-request.js';
import type { PythonRequest, WireStat } from './protocol.js';

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
  return Math.trunc(value);
};
const strings = (value: unknown, what: string): string[] => {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) fail(Errno.INVAL, `${what}: not a list of strings`);
  return value as string[];
};

function wireStat(stat: FullStat): WireStat {
  return {
    kind: stat.kind, ino: Number(stat.ino), mode: stat.mode, nlink: Number(stat.nlink), uid: stat.uid, gid: stat.gid,
    size: Number(stat.size), atimeMs: Number(stat.atimeNs / 1000000n), mtimeMs: Number(stat.mtimeNs / 1000000n),
    ctimeMs: Number(stat.ctimeNs / 1000000n), dev: Number(stat.dev),
  };
}

function openFlags(value: unknown): OpenFlags {
  if (typeof value !== 'object' || value === null) fail(Errno.INVAL, 'open flags');
  const flags = value as Record<string, unknown>;
  const pick = (name: keyof OpenFlags): boolean => flags[name] === true;
  return {
    read: flags.read !== false, write: pick('write'), create: pick('create'), exclusive: pick('exclusive'),
    truncate: pick('truncate'), append: pick('append'), directory: pick('directory'), noFollow: pick('noFollow'),
  };
}

/**
 * Serves the file, process and network calls. `ready`, `exit`, `fatal` and
 * `snapshotPart` belong to the worker's life and are handled by the caller.
 */
export function serveSyscall(sys: ProcessSyscalls, request: PythonRequest, data: Uint8Array | undefined): Promise<Served> {
  return sys.complete(serveSteps(sys, request, data));
}

/** serveSyscall() for a caller on the kernel thread that cannot suspend (inline Python). */
export function serveSyscallInline(sys: ProcessSyscalls, request: PythonRequest, data: Uint8Array | undefined): Served {
  return sys.completeInline(serveSteps(sys, request, data));
}

function* serveSteps(sys: ProcessSyscalls, request: PythonRequest, data: Uint8Array | undefined): Waiting<Served> {
  switch (request.op) {
    case 'open':
      return { value: sys.open(str(request.path, 'path'), openFlags(request.flags), int(request.mode, 'mode')) };
    case 'close':
      sys.close(int(request.fd, 'fd'));
      return {};
    case 'read': {
      const fd = int(request.fd, 'fd');
      const max = Math.max(0, int(request.max, 'max'));
      if (request.position === undefined || request.position === null) return { data: yield* sys.readSteps(fd, max) };
      // pread: read at a position without moving the descriptor's offset.
      const saved = sys.seek(fd, 0, 'cur');
      sys.seek(fd, int(request.position, 'position'), 'set');
      try {
        return { data: yield* sys.readSteps(fd, max) };
      } finally {
        sys.seek(fd, saved, 'set');
      }
    }
    case 'write': {
      const fd = int(request.fd, 'fd');
      const bytes = data ?? new Uint8Array(0);
      let saved: number | undefined;
      if (request.position !== undefined && request.position !== null) {
        saved = sys.seek(fd, 0, 'cur');
        sys.seek(fd, int(request.position, 'position'), 'set');
      }
      try {
        // A blocking write writes everything, as on Unix (a pipe may take it in pieces).
        let done = 0;
        while (done < bytes.length) {
          try {
            done += yield* sys.writeSteps(fd, bytes.subarray(done));
          } catch (error) {
            if (done > 0 && error instanceof KernelError) break;
            throw error;
          }
        }
        return { value: done };
      } finally {
        if (saved !== undefined) sys.seek(fd, saved, 'set');
      }
    }
    case 'seek': {
      const whence = request.whence === 'cur' || request.whence === 'end' ? request.whence : 'set';
      return { value: sys.seek(int(request.fd, 'fd'), int(request.offset, 'offset'), whence) };
    }
    case 'fstat':
      return { value: wireStat(sys.fstat(int(request.fd, 'fd'))) };
    case 'ftruncate':
      sys.ftruncate(int(request.fd, 'fd'), int(request.size, 'size'));
      return {};
    case 'isatty':
      return { value: sys.isatty(int(request.fd, 'fd')) };
    case 'stat':
      return { value: wireStat(sys.stat(str(request.path, 'path'), request.follow === true)) };
    case 'readdir':
      return { value: sys.readdir(str(request.path, 'path')).map((entry) => entry.name) };
    case 'mkdir':
      sys.mkdir(str(request.path, 'path'), int(request.mode, 'mode'));
      return {};
    case 'rmdir':
      sys.rmdir(str(request.path, 'path'));
      return {};
    case 'unlink':
      sys.unlink(str(request.path, 'path'));
      return {};
    case 'rename':
      sys.rename(str(request.from, 'from'), str(request.to, 'to'));
      return {};
    case 'symlink':
      sys.symlink(str(request.target, 'target'), str(request.path, 'path'));
      return {};
    case 'readlink':
      return { value: sys.readlink(str(request.path, 'path')) };
    case 'chmod':
      sys.chmod(str(request.path, 'path'), int(request.mode, 'mode'));
      return {};
    case 'utimes':
      sys.utimes(str(request.path, 'path'), request.atimeMs ?? undefined, request.mtimeMs ?? undefined);
      return {};
    case 'truncate':
      sys.truncate(str(request.path, 'path'), int(request.size, 'size'));
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
      return { value: yield* sys.pollReadSteps(fds, timeout) };
    }
    case 'spawn': {
      const spawn = request.request;
      if (typeof spawn !== 'object' || spawn === null || !Array.isArray(spawn.fds)) fail(Errno.INVAL, 'spawn request');
      const pid = sys.spawn({
        flags: spawn.newGroup === true ? SPAWN_FLAG_NEW_GROUP : 0,
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
      return { value: (yield* sys.waitSteps(int(request.pid, 'pid'), request.noHang === true)) ?? null };
    case 'kill':
      sys.kill(int(request.pid, 'pid'), int(request.signal, 'signal'));
      return {};
    case 'sleep':
      yield* sys.sleepSteps(Math.max(0, int(request.ms, 'ms')));
      return {};
    case 'deadline':
      return { value: sys.deadlineRemaining() ?? null };
    case 'netRequest': {
      const net = request.request;
      if (typeof net !== 'object' || net === null || !Array.isArray(net.headers)) fail(Errno.INVAL, 'network request');
      const timeout = int(net.timeoutMs, 'timeout');
      const handle = sys.netRequest({
        method: str(net.method, 'method'),
        url: str(net.url, 'url'),
        headers: net.headers.map((pair) => [str(pair[0], 'header'), str(pair[1], 'header')] as [string, string]),
        body: data !== undefined && data.length > 0 ? data : undefined,
        followRedirects: net.followRedirects === true,
        maxRedirects: 20,
        timeoutMs: timeout > 0 ? timeout : Math.floor(sys.deadlineRemaining() ?? 30_000),
      });
      return { value: handle };
    }
    case 'netResponse':
      return { value: yield* sys.netResponseSteps(int(request.handle, 'handle')) };
    case 'netRead':
      return { data: yield* sys.netReadSteps(int(request.handle, 'handle'), Math.max(1, int(request.max, 'max'))) };
    case 'netClose':
      sys.netClose(int(request.handle, 'handle'));
      return {};
    default:
      fail(Errno.NOSYS, `unknown python system call ${String((request as { op?: unknown }).op)}`);
  }
}

/** Python ignores SIGPIPE (like CPython): a write to a closed pipe is EPIPE, not death. */
export function asPythonError(error: unknown): KernelError | ProcessKilled {
  if (error instanceof ProcessKilled && error.reason === 'sigpipe') return new KernelError(Errno.PIPE, 'broken pipe');
  if (error instanceof KernelError || error instanceof ProcessKilled) return error;
  throw error;
}

/** Whether `fd` is a terminal; false when the fd is not open (the answer a start-up needs). */
export function safeIsatty(sys: ProcessSyscalls, fd: number): boolean {
  try {
    return sys.isatty(fd);
  } catch {
    return false;
  }
}

/** Writes a python3 message to stderr; a closed or killed stderr is not an error here. */
export async function writeError(sys: ProcessSyscalls, text: string): Promise<void> {
  try {
    await sys.write(2, new TextEncoder().encode(text));
  } catch (error) {
    if (!(error instanceof KernelError) && !(error instanceof ProcessKilled)) throw error;
  }
}
