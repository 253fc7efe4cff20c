// WASI preview1 for an asyncified wasm process: each import reads its arguments from the
// process's memory, makes the syscall core's call (sys/syscalls.ts) and writes the result
// back. No meaning lives here — only WASI's encodings (structures, flags, rights, cookies).
// The capability table is docs/architecture.md §4: sockets, proc_raise, fd_pread,
// fd_pwrite, fd_renumber and path_link are ENOSYS; poll_oneoff takes clock subscriptions
// only. Structure layouts and constants come from browser_wasi_shim's WASI definitions.

import { wasi } from '@bjorn3/browser_wasi_shim';
import { Errno } from '../errno.js';
import { encodePathString } from '../vfs/path.js';
import type { StatInfo } from '../fd/description.js';
import type { TimeSpec } from '../sys/syscalls.js';
import type { SyscallResult } from './wasm/asyncify.js';
import type { ProcessMemory } from './wasm/process-memory.js';
import type { SyscallGate } from './wasm/syscall-gate.js';

const LOOKUP_SYMLINK_FOLLOW = 1;
/** Returned for open descriptors that are not preopens (wasi.PREOPENTYPE_DIR is 0): wasi-libc skips unknown tags. */
const PRESTAT_TAG_NOT_PREOPEN = 1;
const SUBSCRIPTION_BYTES = 48;
const EVENT_BYTES = 32;
const DIRENT_BYTES = 24;

const encoder = new TextEncoder();

/** Strings as args_get and environ_get write them: each one's bytes and a NUL, in order, and where each starts. */
interface StringsLayout {
  bytes: Uint8Array;
  starts: number[];
}

/**
 * One encoding for the whole list (a process's environment is dozens of strings, asked for
 * by every process): its strings joined by NULs, unless one holds a NUL or a byte that is
 * not UTF-8 (kept as a lone surrogate, vfs/path.ts), which are encoded one by one.
 */
function layOut(items: string[]): StringsLayout {
  const joined = items.length === 0 ? '' : `${items.join('\0')}\0`;
  if (!/[\udc80-\udcff]/.test(joined)) {
    const bytes = encoder.encode(joined);
    const starts = items.length === 0 ? [] : [0];
    for (let at = bytes.indexOf(0); at >= 0 && at + 1 < bytes.length; at = bytes.indexOf(0, at + 1)) starts.push(at + 1);
    if (starts.length === items.length) return { bytes, starts };
  }
  const parts = items.map(encodePathString);
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length + 1, 0));
  const starts: number[] = [];
  let offset = 0;
  for (const part of parts) {
    starts.push(offset);
    bytes.set(part, offset);
    offset += part.length + 1;
  }
  return { bytes, starts };
}

export function writeFilestat(memory: ProcessMemory, ptr: number, stat: StatInfo): void {
  const view = memory.view();
  view.setBigUint64(ptr, stat.dev, true);
  view.setBigUint64(ptr + 8, stat.ino, true);
  view.setUint8(ptr + 16, stat.filetype);
  view.setBigUint64(ptr + 24, stat.nlink, true);
  view.setBigUint64(ptr + 32, stat.size, true);
  view.setBigUint64(ptr + 40, stat.atimeNs, true);
  view.setBigUint64(ptr + 48, stat.mtimeNs, true);
  view.setBigUint64(ptr + 56, stat.ctimeNs, true);
}

/** The times fd_filestat_set_times and path_filestat_set_times ask for. */
function timesOf(atim: bigint, mtim: bigint, flags: number): [TimeSpec, TimeSpec] | undefined {
  if ((flags & wasi.FSTFLAGS_ATIM && flags & wasi.FSTFLAGS_ATIM_NOW) || (flags & wasi.FSTFLAGS_MTIM && flags & wasi.FSTFLAGS_MTIM_NOW)) return undefined;
  const atime: TimeSpec = flags & wasi.FSTFLAGS_ATIM_NOW ? 'now' : flags & wasi.FSTFLAGS_ATIM ? atim : 'omit';
  const mtime: TimeSpec = flags & wasi.FSTFLAGS_MTIM_NOW ? 'now' : flags & wasi.FSTFLAGS_MTIM ? mtim : 'omit';
  return [atime, mtime];
}

export function createWasiImports(memory: ProcessMemory, gate: SyscallGate): Record<string, (...args: never[]) => number> {
  const path = (ptr: number, length: number): string => memory.readString(ptr, length);

  // argv and the environment are asked for twice (sizes, then contents): laid out once. Weak:
  // the imports serve one process after another (kernel.ts, buildImports).
  const layouts = new WeakMap<string[], StringsLayout>();
  const laidOut = (items: string[]): StringsLayout => {
    let layout = layouts.get(items);
    if (layout === undefined) layouts.set(items, (layout = layOut(items)));
    return layout;
  };
  const writeStrings = (items: string[], ptrsPtr: number, bufPtr: number): number => {
    const { bytes, starts } = laidOut(items);
    memory.u8().set(bytes, bufPtr);
    starts.forEach((start, index) => memory.setU32(ptrsPtr + index * 4, bufPtr + start));
    return Errno.SUCCESS;
  };
  const sizeStrings = (items: string[], countPtr: number, sizePtr: number): number => {
    memory.setU32(countPtr, items.length);
    memory.setU32(sizePtr, laidOut(items).bytes.length);
    return Errno.SUCCESS;
  };

  const enosys = (): number => Errno.NOSYS;
  const success = (): number => Errno.SUCCESS;

  const imports = {
    args_sizes_get: (countPtr: number, sizePtr: number) => sizeStrings(gate.sys.argv(), countPtr, sizePtr),
    args_get: (argvPtr: number, bufPtr: number) => writeStrings(gate.sys.argv(), argvPtr, bufPtr),
    environ_sizes_get: (countPtr: number, sizePtr: number) => sizeStrings(gate.sys.environ(), countPtr, sizePtr),
    environ_get: (envPtr: number, bufPtr: number) => writeStrings(gate.sys.environ(), envPtr, bufPtr),

    clock_res_get: (id: number, resultPtr: number) => {
      if (id > 3) return Errno.INVAL;
      memory.setU64(resultPtr, 1000n);
      return Errno.SUCCESS;
    },
    clock_time_get: (id: number, _precision: bigint, resultPtr: number) => {
      memory.setU64(resultPtr, gate.sys.clock(id));
      return Errno.SUCCESS;
    },

    fd_advise: (fd: number) => (gate.sys.sync(fd), Errno.SUCCESS),
    fd_allocate: (fd: number, offset: bigint, length: bigint) => (gate.sys.fallocate(fd, Number(offset), Number(length)), Errno.SUCCESS),
    fd_close: (fd: number) => (gate.sys.close(fd), Errno.SUCCESS),
    fd_datasync: (fd: number) => (gate.sys.sync(fd), Errno.SUCCESS),
    fd_sync: (fd: number) => (gate.sys.sync(fd), Errno.SUCCESS),
    fd_fdstat_get: (fd: number, ptr: number) => {
      const { filetype, flags, rights } = gate.sys.fdstat(fd);
      const view = memory.view();
      view.setUint8(ptr, filetype);
      view.setUint16(ptr + 2, flags, true);
      view.setBigUint64(ptr + 8, rights, true);
      view.setBigUint64(ptr + 16, rights, true);
      return Errno.SUCCESS;
    },
    fd_fdstat_set_flags: (fd: number, flags: number) => (gate.sys.setFdFlags(fd, flags), Errno.SUCCESS),
    fd_fdstat_set_rights: (fd: number) => (gate.sys.sync(fd), Errno.SUCCESS),
    fd_filestat_get: (fd: number, ptr: number) => (writeFilestat(memory, ptr, gate.sys.fstat(fd)), Errno.SUCCESS),
    fd_filestat_set_size: (fd: number, size: bigint) => (gate.sys.ftruncate(fd, Number(size)), Errno.SUCCESS),
    fd_filestat_set_times: (fd: number, atim: bigint, mtim: bigint, flags: number) => {
      const times = timesOf(atim, mtim, flags);
      if (times === undefined) return Errno.INVAL;
      gate.sys.futimens(fd, ...times);
      return Errno.SUCCESS;
    },
    fd_pread: enosys,
    fd_pwrite: enosys,
    fd_renumber: enosys,
    fd_prestat_get: (fd: number, ptr: number) => {
      const name = gate.sys.preopen(fd);
      if (name === null) return Errno.BADF;
      memory.view().setUint8(ptr, name === undefined ? PRESTAT_TAG_NOT_PREOPEN : wasi.PREOPENTYPE_DIR);
      memory.setU32(ptr + 4, name === undefined ? 0 : encodePathString(name).length);
      return Errno.SUCCESS;
    },
    fd_prestat_dir_name: (fd: number, ptr: number, length: number) => {
      const name = gate.sys.preopen(fd);
      if (name === undefined || name === null) return Errno.BADF;
      memory.slice(ptr, length).set(encodePathString(name).subarray(0, length));
      return Errno.SUCCESS;
    },

    fd_read: (fd: number, iovsPtr: number, iovsLength: number, nreadPtr: number): SyscallResult => {
      const iovs = memory.iovecs(iovsPtr, iovsLength);
      const total = iovs.reduce((sum, [, length]) => sum + length, 0);
      return gate.drive(gate.sys.read(fd, total), (data) => {
        let offset = 0;
        for (const [ptr, length] of iovs) {
          if (offset >= data.length) break;
          const part = data.subarray(offset, offset + length);
          memory.slice(ptr, part.length).set(part);
          offset += part.length;
        }
        memory.setU32(nreadPtr, data.length);
        return Errno.SUCCESS;
      });
    },

    fd_write: (fd: number, iovsPtr: number, iovsLength: number, nwrittenPtr: number): SyscallResult => {
      const iovs = memory.iovecs(iovsPtr, iovsLength);
      let data: Uint8Array;
      if (iovs.length === 1) {
        const [ptr, length] = iovs[0] as [number, number];
        data = memory.slice(ptr, length);
      } else {
        data = new Uint8Array(iovs.reduce((sum, [, length]) => sum + length, 0));
        let offset = 0;
        for (const [ptr, length] of iovs) {
          data.set(memory.slice(ptr, length), offset);
          offset += length;
        }
      }
      return gate.drive(gate.sys.write(fd, data), (written) => {
        memory.setU32(nwrittenPtr, written);
        return Errno.SUCCESS;
      });
    },

    fd_seek: (fd: number, offset: bigint, whence: number, resultPtr: number) => {
      memory.setU64(resultPtr, gate.sys.seek(fd, offset, whence));
      return Errno.SUCCESS;
    },
    fd_tell: (fd: number, resultPtr: number) => {
      memory.setU64(resultPtr, gate.sys.tell(fd));
      return Errno.SUCCESS;
    },

    fd_readdir: (fd: number, bufPtr: number, bufLength: number, cookie: bigint, usedPtr: number) => {
      const out = memory.slice(bufPtr, bufLength);
      let used = 0;
      let next = Number(cookie);
      // Every record takes at least DIRENT_BYTES and a byte of name: no more can fit.
      for (const entry of gate.sys.getdents(fd, next, Math.ceil(bufLength / (DIRENT_BYTES + 1)) + 1)) {
        if (used >= bufLength) break;
        next += 1;
        const name = encodePathString(entry.name);
        const record = new Uint8Array(DIRENT_BYTES + name.length);
        const view = new DataView(record.buffer);
        view.setBigUint64(0, BigInt(next), true);
        view.setBigUint64(8, BigInt(entry.ino), true);
        view.setUint32(16, name.length, true);
        view.setUint8(20, entry.filetype);
        record.set(name, DIRENT_BYTES);
        const fits = Math.min(record.length, bufLength - used);
        out.set(record.subarray(0, fits), used);
        used += fits;
      }
      memory.setU32(usedPtr, used);
      return Errno.SUCCESS;
    },

    path_create_directory: (fd: number, pathPtr: number, pathLength: number) => (gate.sys.mkdirat(fd, path(pathPtr, pathLength), 0o777), Errno.SUCCESS),
    path_filestat_get: (fd: number, flags: number, pathPtr: number, pathLength: number, ptr: number) => {
      writeFilestat(memory, ptr, gate.sys.statat(fd, path(pathPtr, pathLength), (flags & LOOKUP_SYMLINK_FOLLOW) !== 0));
      return Errno.SUCCESS;
    },
    path_filestat_set_times: (fd: number, flags: number, pathPtr: number, pathLength: number, atim: bigint, mtim: bigint, fstFlags: number) => {
      const times = timesOf(atim, mtim, fstFlags);
      if (times === undefined) return Errno.INVAL;
      gate.sys.utimensat(fd, path(pathPtr, pathLength), ...times, (flags & LOOKUP_SYMLINK_FOLLOW) !== 0);
      return Errno.SUCCESS;
    },
    path_link: enosys,
    path_open: (fd: number, dirflags: number, pathPtr: number, pathLength: number, oflags: number, rightsBase: bigint, _rightsInheriting: bigint, fdflags: number, fdPtr: number) => {
      const directory = (oflags & wasi.OFLAGS_DIRECTORY) !== 0;
      const opened = gate.sys.openat(fd, path(pathPtr, pathLength), {
        read: (rightsBase & BigInt(wasi.RIGHTS_FD_READ)) !== 0n,
        // Rights are what may be asked later, not an access mode: wasi-libc asks for
        // every right when it opens a directory (O_DIRECTORY), which is not a write.
        write: (rightsBase & BigInt(wasi.RIGHTS_FD_WRITE)) !== 0n && !directory,
        create: (oflags & wasi.OFLAGS_CREAT) !== 0,
        exclusive: (oflags & wasi.OFLAGS_EXCL) !== 0,
        truncate: (oflags & wasi.OFLAGS_TRUNC) !== 0,
        directory,
        noFollow: (dirflags & LOOKUP_SYMLINK_FOLLOW) === 0,
        append: (fdflags & wasi.FDFLAGS_APPEND) !== 0,
        nonBlock: (fdflags & wasi.FDFLAGS_NONBLOCK) !== 0,
      });
      memory.setU32(fdPtr, opened);
      return Errno.SUCCESS;
    },
    path_readlink: (fd: number, pathPtr: number, pathLength: number, bufPtr: number, bufLength: number, usedPtr: number) => {
      const target = encodePathString(gate.sys.readlinkat(fd, path(pathPtr, pathLength)));
      const count = Math.min(target.length, bufLength);
      memory.slice(bufPtr, count).set(target.subarray(0, count));
      memory.setU32(usedPtr, count);
      return Errno.SUCCESS;
    },
    path_remove_directory: (fd: number, pathPtr: number, pathLength: number) => (gate.sys.rmdirat(fd, path(pathPtr, pathLength)), Errno.SUCCESS),
    path_rename: (fd: number, oldPtr: number, oldLength: number, newFd: number, newPtr: number, newLength: number) => {
      gate.sys.renameat(fd, path(oldPtr, oldLength), newFd, path(newPtr, newLength));
      return Errno.SUCCESS;
    },
    path_symlink: (oldPtr: number, oldLength: number, fd: number, newPtr: number, newLength: number) => {
      gate.sys.symlinkat(path(oldPtr, oldLength), fd, path(newPtr, newLength));
      return Errno.SUCCESS;
    },
    path_unlink_file: (fd: number, pathPtr: number, pathLength: number) => (gate.sys.unlinkat(fd, path(pathPtr, pathLength)), Errno.SUCCESS),

    poll_oneoff: (inPtr: number, outPtr: number, count: number, neventsPtr: number): SyscallResult => {
      if (count === 0) return Errno.INVAL;
      const view = memory.view();
      const clocks: Array<{ userdata: bigint; wakeAt: number }> = [];
      for (let i = 0; i < count; i++) {
        const base = inPtr + i * SUBSCRIPTION_BYTES;
        if (view.getUint8(base + 8) !== wasi.EVENTTYPE_CLOCK) return Errno.NOSYS;
        const clockId = view.getUint32(base + 16, true);
        const timeout = view.getBigUint64(base + 24, true);
        const absolute = (view.getUint16(base + 40, true) & wasi.SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME) !== 0;
        const nowMs = performance.now();
        let wakeAt: number;
        if (!absolute) wakeAt = nowMs + Number(timeout) / 1e6;
        else if (clockId === 0) wakeAt = nowMs + (Number(timeout) - Number(gate.sys.clock(0))) / 1e6;
        else wakeAt = Number(timeout) / 1e6;
        clocks.push({ userdata: view.getBigUint64(base, true), wakeAt });
      }
      const earliest = Math.min(...clocks.map((c) => c.wakeAt));
      return gate.drive(gate.sys.sleepUntil(earliest), () => {
        const ready = clocks.filter((c) => c.wakeAt <= earliest);
        const out = memory.view();
        ready.forEach((clock, index) => {
          const event = outPtr + index * EVENT_BYTES;
          out.setBigUint64(event, clock.userdata, true);
          out.setUint16(event + 8, 0, true);
          out.setUint8(event + 10, wasi.EVENTTYPE_CLOCK);
        });
        memory.setU32(neventsPtr, ready.length);
        return Errno.SUCCESS;
      });
    },

    proc_exit: (code: number): number => gate.sys.exit(code),
    proc_raise: enosys,
    random_get: (ptr: number, length: number) => (memory.slice(ptr, length).set(gate.sys.random(length)), Errno.SUCCESS),
    sched_yield: (): SyscallResult => gate.drive(gate.sys.yieldTurn(), success),
    sock_accept: enosys,
    sock_recv: enosys,
    sock_send: enosys,
    sock_shutdown: enosys,
  };

  const wrapped: Record<string, (...args: never[]) => number> = {};
  for (const [name, fn] of Object.entries(imports)) wrapped[name] = gate.wrap(fn as (...args: unknown[]) => SyscallResult);
  return wrapped;
}
