// WASI preview1 for one process, on the kernel's VFS and descriptor table. Exactly the
// capability table of ARCHITECTURE.md §4: sockets, proc_raise, fd_pread, fd_pwrite,
// fd_renumber and path_link are ENOSYS; poll_oneoff takes clock subscriptions only.
// Structure layouts and constants come from browser_wasi_shim's WASI definitions.

import { wasi } from '@bjorn3/browser_wasi_shim';
import { Errno, KernelError, fail } from '../errno.js';
import { Blocker } from '../proc/blocker.js';
import { ProcessExit, ProcessKilled, SIGPIPE_STATUS } from '../proc/exit.js';
import type { Process } from '../proc/process.js';
import type { ProcessTable } from '../proc/process-table.js';
import type { Scheduler } from '../proc/scheduler.js';
import type { Inode } from '../vfs/inode.js';
import { nowNs } from '../vfs/inode.js';
import { encodePathString, normalizeAbsolute } from '../vfs/path.js';
import { isFdLink, type Vfs, type VfsCaller } from '../vfs/vfs.js';
import { Suspension, mapResult, type SyscallResult } from './asyncify.js';
import type { Description, StatInfo } from './description.js';
import { ProcessMemory } from './process-memory.js';
import type { SyscallGate } from './syscall-gate.js';
import { DeviceDescription, DirectoryDescription, FileDescription, statOf } from './vfs-descriptions.js';

const RIGHTS_FD_READ = 1n << 1n;
const RIGHTS_FD_WRITE = 1n << 6n;
const LOOKUP_SYMLINK_FOLLOW = 1;
const PRESTAT_TAG_DIR = 0;
/** Returned for open descriptors that are not preopens: wasi-libc skips unknown tags. */
const PRESTAT_TAG_NOT_PREOPEN = 1;

export interface WasiKernel {
  vfs: Vfs;
  scheduler: Scheduler;
  processes: ProcessTable;
}

export function callerOf(process: Process): VfsCaller {
  return { pid: process.pid, umask: process.umask, uid: 1000, gid: 1000 };
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

export function createWasiImports(process: Process, kernel: WasiKernel, gate: SyscallGate): Record<string, (...args: never[]) => number> {
  const memory = new ProcessMemory(process.memory as WebAssembly.Memory);
  const { vfs, scheduler } = kernel;
  const caller = (): VfsCaller => callerOf(process);

  const directory = (fd: number): DirectoryDescription => {
    const description = process.fds.get(fd);
    if (!(description instanceof DirectoryDescription)) fail(Errno.NOTDIR, 'not a directory');
    return description;
  };
  const labelFor = (base: DirectoryDescription, path: string): string => normalizeAbsolute(path, base.path);

  const writeStrings = (items: string[], ptrsPtr: number, bufPtr: number): number => {
    let offset = bufPtr;
    items.forEach((item, index) => {
      memory.setU32(ptrsPtr + index * 4, offset);
      const bytes = encodePathString(item);
      memory.u8().set(bytes, offset);
      memory.u8()[offset + bytes.length] = 0;
      offset += bytes.length + 1;
    });
    return Errno.SUCCESS;
  };
  const sizeStrings = (items: string[], countPtr: number, sizePtr: number): number => {
    memory.setU32(countPtr, items.length);
    memory.setU32(sizePtr, items.reduce((sum, item) => sum + encodePathString(item).length + 1, 0));
    return Errno.SUCCESS;
  };

  const descriptionFor = (inode: Inode, path: string, readable: boolean, writable: boolean, directoryFlag: boolean): Description => {
    switch (inode.kind) {
      case 'dir':
        if (writable && !directoryFlag) fail(Errno.ISDIR, 'is a directory');
        return new DirectoryDescription(vfs, inode.ino, path);
      case 'file':
        if (directoryFlag) fail(Errno.NOTDIR, 'not a directory');
        if (writable && !inode.writable) fail(Errno.ROFS, 'read-only file system');
        return new FileDescription(vfs, inode.ino, readable, writable, path);
      case 'chardev':
        if (directoryFlag) fail(Errno.NOTDIR, 'not a directory');
        return new DeviceDescription(vfs, inode.ino, inode.device);
      case 'symlink':
        fail(Errno.LOOP, 'too many levels of symbolic links');
    }
  };

  const openFdLink = (inode: Inode): Description => {
    if (!isFdLink(inode)) fail(Errno.INVAL, 'not a descriptor link');
    const owner = kernel.processes.get(inode.fdRef.pid);
    if (owner === undefined) fail(Errno.NOENT, 'no such process');
    return owner.fds.get(inode.fdRef.fd);
  };

  /** Creates the file for O_CREAT, following a dangling final symlink like Linux does. */
  const createAt = (startIno: number, path: string, follow: boolean): Inode => {
    let start = startIno;
    let target = path;
    for (let hops = 0; hops <= 40; hops++) {
      if (target.endsWith('/')) fail(Errno.ISDIR, 'is a directory');
      const { dir, name } = vfs.resolveParent(start, target, caller());
      const existing = dir.entries.get(name);
      const existingInode = existing === undefined ? undefined : vfs.get(existing);
      if (existingInode?.kind === 'symlink' && follow) {
        start = dir.ino;
        target = existingInode.target;
        continue;
      }
      if (existingInode !== undefined) return existingInode;
      return vfs.createFile(dir, name, caller(), 0o666);
    }
    fail(Errno.LOOP, 'too many levels of symbolic links');
  };

  const setTimes = (ino: number, atim: bigint, mtim: bigint, flags: number): number => {
    if ((flags & wasi.FSTFLAGS_ATIM && flags & wasi.FSTFLAGS_ATIM_NOW) || (flags & wasi.FSTFLAGS_MTIM && flags & wasi.FSTFLAGS_MTIM_NOW)) {
      fail(Errno.INVAL, 'conflicting time flags');
    }
    const now = nowNs();
    const atime = flags & wasi.FSTFLAGS_ATIM_NOW ? now : flags & wasi.FSTFLAGS_ATIM ? atim : undefined;
    const mtime = flags & wasi.FSTFLAGS_MTIM_NOW ? now : flags & wasi.FSTFLAGS_MTIM ? mtim : undefined;
    vfs.setTimes(ino, atime, mtime);
    return Errno.SUCCESS;
  };

  /** EPIPE ends the process with status 141 (SIGPIPE) unless it ignores SIGPIPE. */
  const brokenPipe = (error: unknown): unknown => {
    if (error instanceof KernelError && error.errno === Errno.PIPE && !process.ignoreSigpipe) return new ProcessKilled(SIGPIPE_STATUS, 'sigpipe');
    return error;
  };

  const enosys = (): number => Errno.NOSYS;
  const success = (): number => Errno.SUCCESS;

  const imports = {
    args_sizes_get: (countPtr: number, sizePtr: number) => sizeStrings(process.argv, countPtr, sizePtr),
    args_get: (argvPtr: number, bufPtr: number) => writeStrings(process.argv, argvPtr, bufPtr),
    environ_sizes_get: (countPtr: number, sizePtr: number) => sizeStrings(process.env, countPtr, sizePtr),
    environ_get: (envPtr: number, bufPtr: number) => writeStrings(process.env, envPtr, bufPtr),

    clock_res_get: (id: number, resultPtr: number) => {
      if (id > 3) return Errno.INVAL;
      memory.setU64(resultPtr, 1000n);
      return Errno.SUCCESS;
    },
    clock_time_get: (id: number, _precision: bigint, resultPtr: number) => {
      if (id === 0) memory.setU64(resultPtr, nowNs());
      else if (id === 1) memory.setU64(resultPtr, BigInt(Math.round(performance.now() * 1e6)));
      else if (id === 2 || id === 3) memory.setU64(resultPtr, BigInt(Math.round((performance.now() - process.startedAt) * 1e6)));
      else return Errno.INVAL;
      return Errno.SUCCESS;
    },

    fd_advise: (fd: number) => (process.fds.get(fd), Errno.SUCCESS),
    fd_allocate: (fd: number, offset: bigint, length: bigint) => {
      const description = process.fds.get(fd);
      if (description instanceof FileDescription) {
        const end = Number(offset + length);
        if (end > Number(description.stat().size)) description.setSize(end);
      }
      return Errno.SUCCESS;
    },
    fd_close: (fd: number) => (process.fds.close(fd), Errno.SUCCESS),
    fd_datasync: (fd: number) => (process.fds.get(fd), Errno.SUCCESS),
    fd_sync: (fd: number) => (process.fds.get(fd), Errno.SUCCESS),
    fd_fdstat_get: (fd: number, ptr: number) => {
      const description = process.fds.get(fd);
      const view = memory.view();
      view.setUint8(ptr, description.filetype());
      view.setUint16(ptr + 2, description.fdflags, true);
      view.setBigUint64(ptr + 8, description.rights(), true);
      view.setBigUint64(ptr + 16, description.rights(), true);
      return Errno.SUCCESS;
    },
    fd_fdstat_set_flags: (fd: number, flags: number) => {
      process.fds.get(fd).fdflags = flags & (wasi.FDFLAGS_APPEND | wasi.FDFLAGS_NONBLOCK);
      return Errno.SUCCESS;
    },
    fd_fdstat_set_rights: (fd: number) => (process.fds.get(fd), Errno.SUCCESS),
    fd_filestat_get: (fd: number, ptr: number) => {
      writeFilestat(memory, ptr, process.fds.get(fd).stat());
      return Errno.SUCCESS;
    },
    fd_filestat_set_size: (fd: number, size: bigint) => {
      process.fds.get(fd).setSize(Number(size));
      return Errno.SUCCESS;
    },
    fd_filestat_set_times: (fd: number, atim: bigint, mtim: bigint, flags: number) => {
      const description = process.fds.get(fd);
      const ino = description instanceof FileDescription || description instanceof DirectoryDescription ? description.ino : undefined;
      if (ino === undefined) return Errno.BADF;
      return setTimes(ino, atim, mtim, flags);
    },
    fd_pread: enosys,
    fd_pwrite: enosys,
    fd_renumber: enosys,
    fd_prestat_get: (fd: number, ptr: number) => {
      const description = process.fds.get(fd);
      const name = description instanceof DirectoryDescription ? description.preopenName : undefined;
      if (name === undefined) {
        memory.view().setUint8(ptr, PRESTAT_TAG_NOT_PREOPEN);
        memory.setU32(ptr + 4, 0);
        return Errno.SUCCESS;
      }
      memory.view().setUint8(ptr, PRESTAT_TAG_DIR);
      memory.setU32(ptr + 4, encodePathString(name).length);
      return Errno.SUCCESS;
    },
    fd_prestat_dir_name: (fd: number, ptr: number, length: number) => {
      const description = process.fds.get(fd);
      if (!(description instanceof DirectoryDescription) || description.preopenName === undefined) return Errno.BADF;
      const name = encodePathString(description.preopenName);
      memory.slice(ptr, length).set(name.subarray(0, length));
      return Errno.SUCCESS;
    },

    fd_read: (fd: number, iovsPtr: number, iovsLength: number, nreadPtr: number): SyscallResult => {
      const description = process.fds.get(fd);
      const iovs = memory.iovecs(iovsPtr, iovsLength);
      const total = iovs.reduce((sum, [, length]) => sum + length, 0);
      if (total === 0) {
        memory.setU32(nreadPtr, 0);
        return Errno.SUCCESS;
      }
      return gate.retrying(
        () => description.read(total),
        (data) => {
          let offset = 0;
          for (const [ptr, length] of iovs) {
            if (offset >= data.length) break;
            const part = data.subarray(offset, offset + length);
            memory.slice(ptr, part.length).set(part);
            offset += part.length;
          }
          memory.setU32(nreadPtr, data.length);
          return Errno.SUCCESS;
        },
      );
    },

    fd_write: (fd: number, iovsPtr: number, iovsLength: number, nwrittenPtr: number): SyscallResult => {
      const description = process.fds.get(fd);
      const iovs = memory.iovecs(iovsPtr, iovsLength);
      let data: Uint8Array;
      if (iovs.length === 1) {
        const [ptr, length] = iovs[0] as [number, number];
        data = memory.slice(ptr, length);
      } else {
        const total = iovs.reduce((sum, [, length]) => sum + length, 0);
        data = new Uint8Array(total);
        let offset = 0;
        for (const [ptr, length] of iovs) {
          data.set(memory.slice(ptr, length), offset);
          offset += length;
        }
      }
      if (data.length === 0) {
        memory.setU32(nwrittenPtr, 0);
        return Errno.SUCCESS;
      }
      try {
        const result = gate.retrying(
          () => description.write(data),
          (written) => {
            memory.setU32(nwrittenPtr, written);
            return Errno.SUCCESS;
          },
        );
        return mapResult(result, (value) => value, (error) => {
          throw brokenPipe(error);
        });
      } catch (error) {
        throw brokenPipe(error);
      }
    },

    fd_seek: (fd: number, offset: bigint, whence: number, resultPtr: number) => {
      memory.setU64(resultPtr, process.fds.get(fd).seek(offset, whence));
      return Errno.SUCCESS;
    },
    fd_tell: (fd: number, resultPtr: number) => {
      memory.setU64(resultPtr, process.fds.get(fd).tell());
      return Errno.SUCCESS;
    },

    fd_readdir: (fd: number, bufPtr: number, bufLength: number, cookie: bigint, usedPtr: number) => {
      const description = process.fds.get(fd);
      if (!(description instanceof DirectoryDescription)) return Errno.NOTDIR;
      if (cookie === 0n || description.listing === undefined) description.listing = description.list(caller());
      const listing = description.listing;
      const out = memory.slice(bufPtr, bufLength);
      let used = 0;
      for (let index = Number(cookie); index < listing.length && used < bufLength; index++) {
        const entry = listing[index] as { name: string; ino: number; filetype: number };
        const name = encodePathString(entry.name);
        const record = new Uint8Array(24 + name.length);
        const view = new DataView(record.buffer);
        view.setBigUint64(0, BigInt(index + 1), true);
        view.setBigUint64(8, BigInt(entry.ino), true);
        view.setUint32(16, name.length, true);
        view.setUint8(20, entry.filetype);
        record.set(name, 24);
        const fits = Math.min(record.length, bufLength - used);
        out.set(record.subarray(0, fits), used);
        used += fits;
      }
      memory.setU32(usedPtr, used);
      return Errno.SUCCESS;
    },

    path_create_directory: (fd: number, pathPtr: number, pathLength: number) => {
      const base = directory(fd);
      const { dir, name } = vfs.resolveParent(base.ino, memory.readString(pathPtr, pathLength), caller());
      vfs.mkdir(dir, name, caller(), 0o777);
      return Errno.SUCCESS;
    },
    path_filestat_get: (fd: number, flags: number, pathPtr: number, pathLength: number, ptr: number) => {
      const base = directory(fd);
      const inode = vfs.resolve(base.ino, memory.readString(pathPtr, pathLength), (flags & LOOKUP_SYMLINK_FOLLOW) !== 0, caller());
      if (isFdLink(inode) && flags & LOOKUP_SYMLINK_FOLLOW) writeFilestat(memory, ptr, openFdLink(inode).stat());
      else writeFilestat(memory, ptr, statOf(vfs, inode));
      return Errno.SUCCESS;
    },
    path_filestat_set_times: (fd: number, flags: number, pathPtr: number, pathLength: number, atim: bigint, mtim: bigint, fstFlags: number) => {
      const base = directory(fd);
      const inode = vfs.resolve(base.ino, memory.readString(pathPtr, pathLength), (flags & LOOKUP_SYMLINK_FOLLOW) !== 0, caller());
      return setTimes(inode.ino, atim, mtim, fstFlags);
    },
    path_link: enosys,
    path_open: (fd: number, dirflags: number, pathPtr: number, pathLength: number, oflags: number, rightsBase: bigint, _rightsInheriting: bigint, fdflags: number, fdPtr: number) => {
      const base = directory(fd);
      const path = memory.readString(pathPtr, pathLength);
      const follow = (dirflags & LOOKUP_SYMLINK_FOLLOW) !== 0;
      const create = (oflags & wasi.OFLAGS_CREAT) !== 0;
      const exclusive = (oflags & wasi.OFLAGS_EXCL) !== 0;
      const directoryFlag = (oflags & wasi.OFLAGS_DIRECTORY) !== 0;
      const truncate = (oflags & wasi.OFLAGS_TRUNC) !== 0;
      const readable = (rightsBase & RIGHTS_FD_READ) !== 0n;
      const writable = (rightsBase & RIGHTS_FD_WRITE) !== 0n || truncate;
      let inode: Inode | undefined;
      try {
        inode = vfs.resolve(base.ino, path, follow || !create ? follow : false, caller());
      } catch (error) {
        if (!(error instanceof KernelError) || error.errno !== Errno.NOENT || !create) throw error;
      }
      if (inode !== undefined && create && exclusive) fail(Errno.EXIST, 'file exists');
      if (inode === undefined) inode = createAt(base.ino, path, follow);
      let description: Description;
      if (isFdLink(inode)) description = openFdLink(inode);
      else {
        description = descriptionFor(inode, labelFor(base, path), readable, writable, directoryFlag);
        if (truncate && inode.kind === 'file' && inode.size > 0) vfs.truncate(inode.ino, 0);
        description.fdflags = fdflags & (wasi.FDFLAGS_APPEND | wasi.FDFLAGS_NONBLOCK);
      }
      memory.setU32(fdPtr, process.fds.add(description, 0));
      return Errno.SUCCESS;
    },
    path_readlink: (fd: number, pathPtr: number, pathLength: number, bufPtr: number, bufLength: number, usedPtr: number) => {
      const base = directory(fd);
      const inode = vfs.resolve(base.ino, memory.readString(pathPtr, pathLength), false, caller());
      if (inode.kind !== 'symlink') return Errno.INVAL;
      const target = encodePathString(inode.target);
      const count = Math.min(target.length, bufLength);
      memory.slice(bufPtr, count).set(target.subarray(0, count));
      memory.setU32(usedPtr, count);
      return Errno.SUCCESS;
    },
    path_remove_directory: (fd: number, pathPtr: number, pathLength: number) => {
      const base = directory(fd);
      const { dir, name } = vfs.resolveParent(base.ino, memory.readString(pathPtr, pathLength), caller());
      vfs.rmdir(dir, name);
      return Errno.SUCCESS;
    },
    path_rename: (fd: number, oldPtr: number, oldLength: number, newFd: number, newPtr: number, newLength: number) => {
      const from = vfs.resolveParent(directory(fd).ino, memory.readString(oldPtr, oldLength), caller());
      const to = vfs.resolveParent(directory(newFd).ino, memory.readString(newPtr, newLength), caller());
      vfs.rename(from.dir, from.name, to.dir, to.name);
      return Errno.SUCCESS;
    },
    path_symlink: (oldPtr: number, oldLength: number, fd: number, newPtr: number, newLength: number) => {
      const target = memory.readString(oldPtr, oldLength);
      const { dir, name } = vfs.resolveParent(directory(fd).ino, memory.readString(newPtr, newLength), caller());
      vfs.symlink(dir, name, target, caller());
      return Errno.SUCCESS;
    },
    path_unlink_file: (fd: number, pathPtr: number, pathLength: number) => {
      const path = memory.readString(pathPtr, pathLength);
      const { dir, name } = vfs.resolveParent(directory(fd).ino, path, caller());
      if (path.endsWith('/')) {
        const inode = vfs.resolve(directory(fd).ino, path, false, caller());
        fail(inode.kind === 'dir' ? Errno.ISDIR : Errno.NOTDIR, 'not a file');
      }
      vfs.unlink(dir, name);
      return Errno.SUCCESS;
    },

    poll_oneoff: (inPtr: number, outPtr: number, count: number, neventsPtr: number): SyscallResult => {
      if (count === 0) return Errno.INVAL;
      const view = memory.view();
      const clocks: Array<{ userdata: bigint; wakeAt: number }> = [];
      for (let i = 0; i < count; i++) {
        const base = inPtr + i * 48;
        const tag = view.getUint8(base + 8);
        if (tag !== wasi.EVENTTYPE_CLOCK) return Errno.NOSYS;
        const clockId = view.getUint32(base + 16, true);
        const timeout = view.getBigUint64(base + 24, true);
        const absolute = (view.getUint16(base + 40, true) & wasi.SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME) !== 0;
        const nowMs = performance.now();
        let wakeAt: number;
        if (!absolute) wakeAt = nowMs + Number(timeout) / 1e6;
        else if (clockId === 0) wakeAt = nowMs + (Number(timeout) - Number(nowNs())) / 1e6;
        else wakeAt = Number(timeout) / 1e6;
        clocks.push({ userdata: view.getBigUint64(base, true), wakeAt });
      }
      const earliest = Math.min(...clocks.map((c) => c.wakeAt));
      const finish = (): number => {
        const ready = clocks.filter((c) => c.wakeAt <= earliest);
        ready.forEach((clock, index) => {
          const event = outPtr + index * 32;
          const out = memory.view();
          out.setBigUint64(event, clock.userdata, true);
          out.setUint16(event + 8, 0, true);
          out.setUint8(event + 10, wasi.EVENTTYPE_CLOCK);
        });
        memory.setU32(neventsPtr, ready.length);
        return Errno.SUCCESS;
      };
      // Timers may fire a little before the monotonic clock reaches the target (they round
      // to whole milliseconds): sleep again for the rest, so a sleep is never short.
      const sleepUntilEarliest = (): SyscallResult => {
        const delay = earliest - performance.now();
        if (delay <= 0) return finish();
        const blocker = new Blocker('external', 'sleep');
        scheduler.wakeAfter(blocker, Math.ceil(delay));
        return gate.suspend(blocker, sleepUntilEarliest);
      };
      if (earliest - performance.now() <= 0) return finish();
      return sleepUntilEarliest();
    },

    proc_exit: (code: number): number => {
      throw new ProcessExit(code);
    },
    proc_raise: enosys,
    random_get: (ptr: number, length: number) => {
      const out = memory.slice(ptr, length);
      for (let offset = 0; offset < length; offset += 65536) crypto.getRandomValues(out.subarray(offset, Math.min(length, offset + 65536)));
      return Errno.SUCCESS;
    },
    sched_yield: (): SyscallResult => {
      const turn = scheduler.yieldTurn();
      return new Suspension((continuation) => scheduler.whenSettled(turn, continuation), success);
    },
    sock_accept: enosys,
    sock_recv: enosys,
    sock_send: enosys,
    sock_shutdown: enosys,
  };

  const wrapped: Record<string, (...args: never[]) => number> = {};
  for (const [name, fn] of Object.entries(imports)) wrapped[name] = gate.wrap(fn as (...args: unknown[]) => SyscallResult);
  return wrapped;
}

