// The `airlock` import module, ABI version 1 (docs/abi.md; the Rust side is
// crates/airlock-sys). Everything a process may ask of the kernel beyond WASI preview1:
// processes, pipes, descriptor duplication, its working directory, modes and umask.

import { Errno, fail } from '../errno.js';
import type { SyscallResult } from '../wasi/asyncify.js';
import { ProcessMemory } from '../wasi/process-memory.js';
import type { SyscallGate } from '../wasi/syscall-gate.js';
import type { StatInfo } from '../wasi/description.js';
import { PipeReader, PipeWriter } from '../wasi/stream-descriptions.js';
import { DirectoryDescription, statOf } from '../wasi/vfs-descriptions.js';
import { callerOf } from '../wasi/wasi-imports.js';
import { normalizeAbsolute } from '../vfs/path.js';
import type { Vfs } from '../vfs/vfs.js';
import { isFdLink } from '../vfs/vfs.js';
import { Pipe } from './pipe.js';
import type { Process } from './process.js';
import type { ProcessTable } from './process-table.js';
import type { Scheduler } from './scheduler.js';
import { decodeSpawnRequest, type SpawnRequest } from './spawn-request.js';

export const AIRLOCK_ABI_VERSION = 1;
const WNOHANG = 1;
const LOOKUP_SYMLINK_FOLLOW = 1;

export interface AirlockKernel {
  vfs: Vfs;
  scheduler: Scheduler;
  processes: ProcessTable;
  /** Starts a process for `request` on behalf of `parent`; returns its pid. */
  spawnFor(parent: Process, request: SpawnRequest): number;
  /** Extra imports (session, network) that other parts of the kernel provide. */
  extraImports?(process: Process, memory: ProcessMemory, gate: SyscallGate): Record<string, (...args: never[]) => SyscallResult>;
}

export function createAirlockImports(process: Process, kernel: AirlockKernel, gate: SyscallGate): Record<string, (...args: never[]) => number> {
  const memory = new ProcessMemory(process.memory as WebAssembly.Memory);
  const { vfs, processes } = kernel;

  const directoryIno = (fd: number): number => {
    const description = process.fds.get(fd);
    if (!(description instanceof DirectoryDescription)) fail(Errno.NOTDIR, 'not a directory');
    return description.ino;
  };

  /** struct airlock_stat (64 bytes): mode, uid, gid, nlink (u32); ino, dev, size, atime, mtime, ctime (u64, times in ns). */
  const writeStat = (ptr: number, stat: StatInfo): void => {
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
  };

  const imports: Record<string, (...args: never[]) => SyscallResult> = {
    abi_version: () => AIRLOCK_ABI_VERSION,

    proc_spawn: (requestPtr: number, requestLength: number, pidPtr: number) => {
      const request = decodeSpawnRequest(memory.slice(requestPtr, requestLength).slice());
      memory.setU32(pidPtr, kernel.spawnFor(process, request));
      return Errno.SUCCESS;
    },

    proc_wait: (pid: number, options: number, pidPtr: number, statusPtr: number): SyscallResult =>
      gate.retrying(
        () => processes.wait(process, pid, (options & WNOHANG) !== 0),
        (result) => {
          memory.setU32(pidPtr, result?.pid ?? 0);
          memory.setU32(statusPtr, result?.status ?? 0);
          return Errno.SUCCESS;
        },
      ),

    proc_kill: (pid: number, signal: number) => {
      processes.kill(process, pid, signal);
      if (process.pendingKill !== undefined) throw process.pendingKill;
      return Errno.SUCCESS;
    },

    proc_getpid: () => process.pid,
    proc_getppid: () => process.ppid,

    proc_blob_size: (sizePtr: number) => {
      memory.setU32(sizePtr, process.blob.length);
      return Errno.SUCCESS;
    },
    proc_blob_read: (bufPtr: number, length: number) => {
      memory.slice(bufPtr, Math.min(length, process.blob.length)).set(process.blob.subarray(0, length));
      return Errno.SUCCESS;
    },

    proc_tool_name: (bufPtr: number, length: number, lengthPtr: number) => {
      const name = new TextEncoder().encode(process.tool);
      if (name.length > length) return Errno.NAMETOOLONG;
      memory.slice(bufPtr, name.length).set(name);
      memory.setU32(lengthPtr, name.length);
      return Errno.SUCCESS;
    },

    proc_cwd_get: (bufPtr: number, length: number, lengthPtr: number) => {
      const cwd = new TextEncoder().encode(process.cwd);
      if (cwd.length > length) return Errno.NAMETOOLONG;
      memory.slice(bufPtr, cwd.length).set(cwd);
      memory.setU32(lengthPtr, cwd.length);
      return Errno.SUCCESS;
    },
    proc_cwd_set: (pathPtr: number, length: number) => {
      const requested = memory.readString(pathPtr, length);
      const path = normalizeAbsolute(requested, process.cwd);
      const inode = vfs.resolve(process.cwdIno, requested, true, callerOf(process));
      if (inode.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
      process.cwd = path;
      process.cwdIno = inode.ino;
      return Errno.SUCCESS;
    },

    proc_umask: (mask: number, previousPtr: number) => {
      memory.setU32(previousPtr, process.umask);
      // wasm passes the u32 as a signed i32: "only read" (0xffffffff) arrives as -1.
      if (mask >>> 0 !== 0xffffffff) process.umask = mask & 0o777;
      return Errno.SUCCESS;
    },

    fd_pipe: (fdsPtr: number) => {
      const pipe = new Pipe();
      const reader = new PipeReader(pipe);
      const writer = new PipeWriter(pipe);
      const readFd = process.fds.add(reader, 0);
      const writeFd = process.fds.add(writer, 0);
      memory.setU32(fdsPtr, readFd);
      memory.setU32(fdsPtr + 4, writeFd);
      return Errno.SUCCESS;
    },
    fd_dup: (fd: number, min: number, fdPtr: number) => {
      memory.setU32(fdPtr, process.fds.add(process.fds.get(fd), min));
      return Errno.SUCCESS;
    },
    fd_dup2: (fd: number, target: number) => {
      const description = process.fds.get(fd);
      if (fd !== target) process.fds.set(target, description);
      return Errno.SUCCESS;
    },

    fd_stat_ext: (fd: number, ptr: number) => {
      writeStat(ptr, process.fds.get(fd).stat());
      return Errno.SUCCESS;
    },
    path_stat_ext: (fd: number, flags: number, pathPtr: number, pathLength: number, ptr: number) => {
      const inode = vfs.resolve(directoryIno(fd), memory.readString(pathPtr, pathLength), (flags & LOOKUP_SYMLINK_FOLLOW) !== 0, callerOf(process));
      if (isFdLink(inode) && flags & LOOKUP_SYMLINK_FOLLOW) {
        const owner = processes.get(inode.fdRef.pid);
        if (owner === undefined) fail(Errno.NOENT, 'no such process');
        writeStat(ptr, owner.fds.get(inode.fdRef.fd).stat());
      } else writeStat(ptr, statOf(vfs, inode));
      return Errno.SUCCESS;
    },
    path_chmod: (fd: number, flags: number, pathPtr: number, pathLength: number, mode: number) => {
      const inode = vfs.resolve(directoryIno(fd), memory.readString(pathPtr, pathLength), (flags & LOOKUP_SYMLINK_FOLLOW) !== 0, callerOf(process));
      if (inode.kind === 'symlink') fail(Errno.NOTSUP, 'cannot change the mode of a symbolic link');
      vfs.chmod(inode.ino, mode);
      return Errno.SUCCESS;
    },

    fs_stats: (ptr: number) => {
      const { usage, limits } = vfs.meter;
      const view = memory.view();
      view.setBigUint64(ptr, BigInt(Math.min(limits.fsBytes, Number.MAX_SAFE_INTEGER)), true);
      view.setBigUint64(ptr + 8, BigInt(usage.bytes), true);
      view.setBigUint64(ptr + 16, BigInt(Number.isFinite(limits.fileCount) ? limits.fileCount : 2 ** 32), true);
      view.setBigUint64(ptr + 24, BigInt(usage.inodes), true);
      return Errno.SUCCESS;
    },

    deadline_remaining: (msPtr: number) => {
      const remaining = kernel.scheduler.remaining();
      if (remaining === undefined) return Errno.NOENT;
      memory.setU64(msPtr, BigInt(Math.floor(remaining)));
      return Errno.SUCCESS;
    },

    ...(kernel.extraImports?.(process, memory, gate) ?? {}),
  };

  const wrapped: Record<string, (...args: never[]) => number> = {};
  for (const [name, fn] of Object.entries(imports)) wrapped[name] = gate.wrap(fn as (...args: unknown[]) => SyscallResult);
  return wrapped;
}
