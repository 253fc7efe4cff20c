// The `airlock` import module, ABI version 1: everything a wasm process may ask of the
// kernel beyond WASI preview1, in the order of docs/abi.md (the contract; the Rust side is
// crates/airlock-sys) — processes, descriptors, the terminal, the session shell, the
// network. Each import only marshals: the meanings are the syscall core's
// (sys/syscalls.ts) and the session shell's (session/session-shell.ts).

import { Errno, fail } from '../errno.js';
import type { StatInfo } from '../fd/description.js';
import { netFailureErrno } from '../net/net-client.js';
import type { NetRequestSpec } from '../sys/net-calls.js';
import type { SpawnRequest } from '../sys/spawn.js';
import type { SessionShell } from '../session/session-shell.js';
import { decodePathBytes } from '../vfs/path.js';
import type { SyscallResult } from './wasm/asyncify.js';
import type { ProcessMemory } from './wasm/process-memory.js';
import type { SyscallGate } from './wasm/syscall-gate.js';

export const AIRLOCK_ABI_VERSION = 1;
const WNOHANG = 1;
const LOOKUP_SYMLINK_FOLLOW = 1;
const SPAWN_FLAG_IGNORE_SIGPIPE = 1;
const SPAWN_FLAG_NEW_GROUP = 2;
const NET_FLAG_FOLLOW_REDIRECTS = 1;
const MAX_SPAWN_ITEMS = 100000;
const MAX_SPAWN_FDS = 1024;
const MAX_REQUEST_HEAD = 64 * 1024;
const UNLIMITED_FILES = 2 ** 32;

const encoder = new TextEncoder();

export function createAirlockImports(memory: ProcessMemory, gate: SyscallGate, session: SessionShell | undefined): Record<string, (...args: never[]) => number> {
  const path = (ptr: number, length: number): string => memory.readString(ptr, length);
  const follows = (flags: number): boolean => (flags & LOOKUP_SYMLINK_FOLLOW) !== 0;

  /** Copies `bytes` out if they fit: NAMETOOLONG otherwise. */
  const copyOut = (bytes: Uint8Array, bufPtr: number, length: number, lengthPtr: number): number => {
    if (bytes.length > length) return Errno.NAMETOOLONG;
    memory.slice(bufPtr, bytes.length).set(bytes);
    memory.setU32(lengthPtr, bytes.length);
    return Errno.SUCCESS;
  };

  /** struct airlock_stat (64 bytes): mode, uid, gid, nlink (u32); ino, dev, size, atime, mtime, ctime (u64, times in ns). */
  const writeStat = (ptr: number, stat: StatInfo): number => {
    const view = memory.view();
    view.setUint32(ptr, stat.mode, true);
    view.setUint32(ptr + 4, stat.uid, true);
    view.setUint32(ptr + 8, stat.gid, true);
    view.setUint32(ptr + 12, Number(stat.nlink), true);
    view.setBigUint64(ptr + 16, stat.ino, true);
    view.setBigUint64(ptr + 24, stat.dev, true);
    view.setBigUint64(ptr + 32, stat.size, true);
    view.setBigUint64(ptr + 40, stat.atimeNs, true);
    view.setBigUint64(ptr + 48, stat.mtimeNs, true);
    view.setBigUint64(ptr + 56, stat.ctimeNs, true);
    return Errno.SUCCESS;
  };

  const sessionOf = (): SessionShell => session ?? fail(Errno.NOSYS, 'this sandbox has no session shell');

  const imports: Record<string, (...args: never[]) => SyscallResult> = {
    abi_version: () => AIRLOCK_ABI_VERSION,

    // ---- processes ----
    proc_spawn: (requestPtr: number, requestLength: number, pidPtr: number) => {
      memory.setU32(pidPtr, gate.sys.spawn(decodeSpawnRequest(memory.slice(requestPtr, requestLength).slice())));
      return Errno.SUCCESS;
    },
    proc_wait: (pid: number, options: number, pidPtr: number, statusPtr: number) =>
      gate.drive(gate.sys.wait(pid, (options & WNOHANG) !== 0), (result) => {
        memory.setU32(pidPtr, result?.pid ?? 0);
        memory.setU32(statusPtr, result?.status ?? 0);
        return Errno.SUCCESS;
      }),
    proc_kill: (pid: number, signal: number) => (gate.sys.kill(pid, signal), Errno.SUCCESS),
    proc_getpid: () => gate.sys.process.pid,
    proc_getppid: () => gate.sys.process.ppid,
    proc_blob_size: (sizePtr: number) => (memory.setU32(sizePtr, gate.sys.process.blob.length), Errno.SUCCESS),
    proc_blob_read: (bufPtr: number, length: number) => {
      memory.slice(bufPtr, Math.min(length, gate.sys.process.blob.length)).set(gate.sys.process.blob.subarray(0, length));
      return Errno.SUCCESS;
    },
    proc_tool_name: (bufPtr: number, length: number, lengthPtr: number) => copyOut(encoder.encode(gate.sys.process.tool), bufPtr, length, lengthPtr),
    proc_cwd_get: (bufPtr: number, length: number, lengthPtr: number) => copyOut(encoder.encode(gate.sys.getcwd()), bufPtr, length, lengthPtr),
    proc_cwd_set: (pathPtr: number, length: number) => (gate.sys.chdir(path(pathPtr, length)), Errno.SUCCESS),
    proc_umask: (mask: number, previousPtr: number) => {
      // wasm passes the u32 as a signed i32: "only read" (0xffffffff) arrives as -1.
      memory.setU32(previousPtr, gate.sys.umask(mask >>> 0 === 0xffffffff ? undefined : mask));
      return Errno.SUCCESS;
    },
    fs_stats: (ptr: number) => {
      const stats = gate.sys.fsStats();
      const view = memory.view();
      view.setBigUint64(ptr, BigInt(Math.min(stats.limitBytes, Number.MAX_SAFE_INTEGER)), true);
      view.setBigUint64(ptr + 8, BigInt(stats.usedBytes), true);
      view.setBigUint64(ptr + 16, BigInt(Number.isFinite(stats.limitFiles) ? stats.limitFiles : UNLIMITED_FILES), true);
      view.setBigUint64(ptr + 24, BigInt(stats.usedFiles), true);
      return Errno.SUCCESS;
    },
    deadline_remaining: (msPtr: number) => {
      const remaining = gate.sys.deadlineRemaining();
      if (remaining === undefined) return Errno.NOENT;
      memory.setU64(msPtr, BigInt(Math.floor(remaining)));
      return Errno.SUCCESS;
    },

    // ---- descriptors ----
    fd_pipe: (fdsPtr: number) => {
      const [readFd, writeFd] = gate.sys.pipe();
      memory.setU32(fdsPtr, readFd);
      memory.setU32(fdsPtr + 4, writeFd);
      return Errno.SUCCESS;
    },
    fd_dup: (fd: number, min: number, fdPtr: number) => (memory.setU32(fdPtr, gate.sys.dup(fd, min)), Errno.SUCCESS),
    fd_dup2: (fd: number, target: number) => (gate.sys.dup2(fd, target), Errno.SUCCESS),
    fd_stat_ext: (fd: number, ptr: number) => writeStat(ptr, gate.sys.fstat(fd)),
    path_stat_ext: (fd: number, flags: number, pathPtr: number, pathLength: number, ptr: number) => writeStat(ptr, gate.sys.statat(fd, path(pathPtr, pathLength), follows(flags))),
    path_chmod: (fd: number, flags: number, pathPtr: number, pathLength: number, mode: number) => (gate.sys.chmodat(fd, path(pathPtr, pathLength), mode, follows(flags)), Errno.SUCCESS),

    // ---- the terminal (docs/abi.md, "The terminal") ----
    tty_get_mode: (fd: number, flagsPtr: number) => (memory.setU32(flagsPtr, gate.sys.ttyGetMode(fd)), Errno.SUCCESS),
    tty_set_mode: (fd: number, flags: number) => (gate.sys.ttySetMode(fd, flags >>> 0), Errno.SUCCESS),
    tty_get_size: (fd: number, sizePtr: number) => {
      const { rows, cols } = gate.sys.ttySize(fd);
      memory.setU32(sizePtr, rows);
      memory.setU32(sizePtr + 4, cols);
      return Errno.SUCCESS;
    },

    // ---- the session shell ----
    session_next: (lengthPtr: number) => gate.drive(sessionOf().next(gate.sys.process), (length) => (memory.setU32(lengthPtr, length), Errno.SUCCESS)),
    session_read: (bufPtr: number, length: number) => {
      const request = sessionOf().read(gate.sys.process);
      memory.slice(bufPtr, Math.min(length, request.length)).set(request.subarray(0, length));
      return Errno.SUCCESS;
    },
    session_poll: () => sessionOf().poll(gate.sys.process),
    session_done: (status: number, statePtr: number, stateLength: number) => (sessionOf().done(gate.sys.process, status, memory.slice(statePtr, stateLength).slice()), Errno.SUCCESS),

    // ---- the network ----
    net_request: (requestPtr: number, requestLength: number, flags: number, timeoutMs: number, handlePtr: number) => {
      memory.setU32(handlePtr, gate.sys.net.request(parseRequest(memory.slice(requestPtr, requestLength), flags, timeoutMs)));
      return Errno.SUCCESS;
    },
    net_response: (handle: number, bufPtr: number, capacity: number, lengthPtr: number) =>
      gate.drive(gate.sys.net.response(handle), (reply) => {
        if (!reply.ok) return netFailureErrno(reply.failure);
        const head = encoder.encode(`${reply.status} ${reply.statusText}\n${reply.url}\n${reply.headers.map(([k, v]) => `${k}: ${v}\n`).join('')}`);
        memory.setU32(lengthPtr, head.length);
        if (head.length > capacity) return Errno.NOBUFS;
        memory.slice(bufPtr, head.length).set(head);
        return Errno.SUCCESS;
      }),
    net_read: (handle: number, bufPtr: number, capacity: number, nreadPtr: number) =>
      gate.drive(gate.sys.net.read(handle, capacity), (piece) => {
        memory.slice(bufPtr, piece.length).set(piece);
        memory.setU32(nreadPtr, piece.length);
        return Errno.SUCCESS;
      }),
    net_error: (handle: number, bufPtr: number, capacity: number, lengthPtr: number) => {
      const message = encoder.encode(gate.sys.net.error(handle));
      const count = Math.min(message.length, capacity);
      memory.slice(bufPtr, count).set(message.subarray(0, count));
      memory.setU32(lengthPtr, count);
      return Errno.SUCCESS;
    },
    net_close: (handle: number) => (gate.sys.net.close(handle), Errno.SUCCESS),
  };

  const wrapped: Record<string, (...args: never[]) => number> = {};
  for (const [name, fn] of Object.entries(imports)) wrapped[name] = gate.wrap(fn as (...args: unknown[]) => SyscallResult);
  return wrapped;
}

/**
 * The spawn request of `proc_spawn` (format: docs/abi.md; encoder:
 * crates/airlock-sys/src/spawn.rs). Sizes are checked against the request's length, so a
 * malformed request is EINVAL, never an out-of-bounds read.
 */
export function decodeSpawnRequest(bytes: Uint8Array): SpawnRequest {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  const u32 = (): number => {
    if (offset + 4 > bytes.length) fail(Errno.INVAL, 'truncated spawn request');
    const value = view.getUint32(offset, true);
    offset += 4;
    return value;
  };
  const raw = (): Uint8Array => {
    const length = u32();
    if (offset + length > bytes.length) fail(Errno.INVAL, 'truncated spawn request');
    const out = bytes.subarray(offset, offset + length);
    offset += length;
    return out;
  };
  const str = (): string => decodePathBytes(raw());
  const list = (): string[] => {
    const count = u32();
    if (count > MAX_SPAWN_ITEMS) fail(Errno.INVAL, 'too many items in spawn request');
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(str());
    return out;
  };
  const flags = u32();
  const program = str();
  const argv = list();
  const env = list();
  const cwd = str();
  const fdCount = u32();
  if (fdCount > MAX_SPAWN_FDS) fail(Errno.INVAL, 'too many descriptors in spawn request');
  const fds: SpawnRequest['fds'] = [];
  for (let i = 0; i < fdCount; i++) fds.push({ childFd: u32(), parentFd: u32() });
  const blob = raw().slice();
  return {
    program, argv, env, cwd, fds, blob,
    ignoreSigpipe: (flags & SPAWN_FLAG_IGNORE_SIGPIPE) !== 0,
    newGroup: (flags & SPAWN_FLAG_NEW_GROUP) !== 0,
  };
}

/**
 * The request of `net_request`, kept free of JSON for programs: `METHOD URL\n`, header
 * lines `Name: value\n`, an empty line, then the body bytes.
 */
function parseRequest(bytes: Uint8Array, flags: number, timeoutMs: number): NetRequestSpec {
  let headEnd = -1;
  for (let i = 0; i + 1 < Math.min(bytes.length, MAX_REQUEST_HEAD); i++) {
    if (bytes[i] === 10 && bytes[i + 1] === 10) {
      headEnd = i;
      break;
    }
  }
  if (headEnd < 0) fail(Errno.INVAL, 'malformed network request');
  const lines = new TextDecoder().decode(bytes.subarray(0, headEnd)).split('\n');
  const first = lines.shift() ?? '';
  const space = first.indexOf(' ');
  if (space <= 0) fail(Errno.INVAL, 'malformed request line');
  const headers: Array<[string, string]> = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) fail(Errno.INVAL, 'malformed header line');
    headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  const body = bytes.subarray(headEnd + 2);
  return {
    method: first.slice(0, space),
    url: first.slice(space + 1),
    headers,
    body: body.length > 0 ? body.slice() : undefined,
    followRedirects: (flags & NET_FLAG_FOLLOW_REDIRECTS) !== 0,
    timeoutMs,
  };
}
