// Python's view of the sandbox filesystem: an Emscripten filesystem whose every operation
// is a kernel system call, mounted over each top-level directory of the kernel's tree
// (/home, /tmp, /etc, /dev, /proc, /usr, ...). Python sees the same inodes, writable paths,
// limits and errors as the WASI tools, and nothing is copied in or out. Pyodide's own
// files (the stdlib zip under /lib) stay in Emscripten's MEMFS.
//
// Emscripten caches nodes by (parent, name); another process may change the tree at any
// time, so lookups on kernel mounts always ask the kernel and refresh the cache. Open
// streams hold a kernel descriptor: reads, writes and seeks use the kernel's offset, so a
// descriptor shared with a child process (subprocess with stdout=file) stays coherent.
// Operations that cross mounts in Emscripten's view but not in the kernel's (rename from
// /tmp to /home) go to the kernel directly.

import { Errno } from '../errno.js';
import type { OpenFlags } from '../sys/open.js';
import type { EmAttr, EmFS, EmFilesystem, EmMount, EmNode, EmNodeOps, EmSetAttr, EmStream, EmStreamOps } from './emscripten-types.js';
import { SyscallError, type KernelClient } from './kernel-client.js';
import type { TopLevelEntry, WireStat } from './protocol.js';

// musl's open flags (Emscripten's libc).
const O_ACCMODE = 3;
const O_WRONLY = 1;
const O_RDWR = 2;
const O_CREAT = 0o100;
const O_EXCL = 0o200;
const O_TRUNC = 0o1000;
const O_APPEND = 0o2000;
const O_DIRECTORY = 0o200000;
const O_NOFOLLOW = 0o400000;

const S_IFMT = 0o170000;
const TYPE_BITS: Record<WireStat['kind'], number> = {
  file: 0o100000, dir: 0o040000, symlink: 0o120000, chardev: 0o020000, fifo: 0o010000, unknown: 0o010000,
};

export function openFlagsOf(flags: number): OpenFlags {
  const access = flags & O_ACCMODE;
  return {
    read: access !== O_WRONLY,
    write: access === O_WRONLY || access === O_RDWR,
    create: (flags & O_CREAT) !== 0,
    exclusive: (flags & O_EXCL) !== 0,
    truncate: (flags & O_TRUNC) !== 0,
    append: (flags & O_APPEND) !== 0,
    directory: (flags & O_DIRECTORY) !== 0,
    noFollow: (flags & O_NOFOLLOW) !== 0,
  };
}

function modeOf(stat: WireStat): number {
  return (stat.mode & ~S_IFMT) | TYPE_BITS[stat.kind];
}

function attrOf(stat: WireStat): EmAttr {
  return {
    dev: stat.dev, ino: stat.ino, mode: modeOf(stat), nlink: stat.nlink, uid: stat.uid, gid: stat.gid, rdev: 0,
    size: stat.size, atime: new Date(stat.atimeMs), mtime: new Date(stat.mtimeMs), ctime: new Date(stat.ctimeMs), blksize: 4096,
    blocks: Math.ceil(stat.size / 512),
  };
}

export interface KernelFsOptions {
  /** Top-level names of the kernel's root to mount ('lib' is Pyodide's and is skipped). */
  topLevel: TopLevelEntry[];
}

/** Installs the kernel filesystem into Emscripten's FS. Returns the stream factory for fds 0-2. */
export function installKernelFs(FS: EmFS, kernel: KernelClient, options: KernelFsOptions): KernelStreams {
  const ErrnoError = FS.ErrnoError;
  const mounts = new Set<string>();

  /** Runs a kernel call, turning its failure into Emscripten's error. */
  const sys = <T>(operation: () => T): T => {
    try {
      return operation();
    } catch (error) {
      if (error instanceof SyscallError) throw new ErrnoError(error.errno);
      throw error;
    }
  };

  const isKernelPath = (absolute: string): boolean => {
    const first = absolute.split('/')[1] ?? '';
    return mounts.has(first);
  };

  const absolute = (path: string): string => (path.startsWith('/') ? path : `${FS.cwd().replace(/\/$/, '')}/${path}`);

  const pathOf = (node: EmNode): string => FS.getPath(node);

  const nodeFor = (parent: EmNode, name: string, stat: WireStat): EmNode => {
    const node = FS.createNode(parent, name, modeOf(stat), 0);
    node.node_ops = nodeOps;
    node.stream_ops = streamOps;
    node.kernelIno = stat.ino;
    return node;
  };

  const kernelFs: EmFilesystem = {
    mount(mount: EmMount): EmNode {
      const path = mount.mountpoint;
      const stat = sys(() => kernel.stat(path, true));
      const root = FS.createNode(null, '/', modeOf(stat), 0);
      root.node_ops = nodeOps;
      root.stream_ops = streamOps;
      root.kernelIno = stat.ino;
      return root;
    },
  };

  const nodeOps: EmNodeOps = {
    getattr: (node) => attrOf(sys(() => kernel.stat(pathOf(node), false))),
    setattr: (node, attr) => setAttributes(pathOf(node), attr),
    lookup: (parent, name) => {
      const path = `${pathOf(parent).replace(/\/$/, '')}/${name}`;
      return nodeFor(parent, name, sys(() => kernel.stat(path, false)));
    },
    mknod: (parent, name, mode) => {
      const path = `${pathOf(parent).replace(/\/$/, '')}/${name}`;
      if (FS.isDir(mode)) sys(() => kernel.mkdir(path, mode & 0o7777));
      else sys(() => kernel.close(kernel.open(path, { write: true, create: true, exclusive: true }, mode & 0o7777)));
      return nodeFor(parent, name, sys(() => kernel.stat(path, false)));
    },
    rename: (node, newDir, newName) => {
      sys(() => kernel.rename(pathOf(node), `${pathOf(newDir).replace(/\/$/, '')}/${newName}`));
    },
    unlink: (parent, name) => sys(() => kernel.unlink(`${pathOf(parent).replace(/\/$/, '')}/${name}`)),
    rmdir: (parent, name) => sys(() => kernel.rmdir(`${pathOf(parent).replace(/\/$/, '')}/${name}`)),
    readdir: (node) => ['.', '..', ...sys(() => kernel.readdir(pathOf(node)))],
    symlink: (parent, newName, oldPath) => {
      sys(() => kernel.symlink(oldPath, `${pathOf(parent).replace(/\/$/, '')}/${newName}`));
    },
    readlink: (node) => sys(() => kernel.readlink(pathOf(node))),
  };

  const setAttributes = (path: string, attr: EmSetAttr): void => {
    if (attr.mode !== undefined) sys(() => kernel.chmod(path, attr.mode as number));
    if (attr.atime !== undefined || attr.mtime !== undefined) sys(() => kernel.utimes(path, attr.atime, attr.mtime));
    if (attr.size !== undefined) sys(() => kernel.truncate(path, attr.size as number));
  };

  const kernelFdOf = (stream: EmStream): number => {
    const fd = stream.shared.kernelFd;
    if (fd === undefined) throw new ErrnoError(Errno.BADF);
    return fd;
  };

  const streamOps: EmStreamOps = {
    // Streams on kernel nodes are made by our open(); Emscripten's own open path (used by
    // Pyodide internals with mode strings) lands here and opens the kernel file now.
    open: (stream) => {
      if (stream.shared.kernelFd !== undefined) return;
      stream.shared.kernelFd = sys(() => kernel.open(stream.path, openFlagsOf(stream.flags), 0o666));
      stream.shared.kernelRefs = 1;
    },
    close: (stream) => {
      const shared = stream.shared;
      if (shared.kernelFd === undefined) return;
      shared.kernelRefs = (shared.kernelRefs ?? 1) - 1;
      if (shared.kernelRefs <= 0) {
        const fd = shared.kernelFd;
        shared.kernelFd = undefined;
        sys(() => kernel.close(fd));
      }
    },
    dup: (stream) => {
      stream.shared.kernelRefs = (stream.shared.kernelRefs ?? 1) + 1;
    },
    llseek: (stream, offset, whence) => sys(() => kernel.seek(kernelFdOf(stream), offset, whence === 0 ? 'set' : whence === 1 ? 'cur' : 'end')),
    getattr: (stream) => attrOf(sys(() => kernel.fstat(kernelFdOf(stream)))),
    setattr: (stream, attr) => {
      if (attr.size !== undefined) sys(() => kernel.ftruncate(kernelFdOf(stream), attr.size as number));
      const rest = { ...attr, size: undefined };
      if (rest.mode !== undefined || rest.atime !== undefined || rest.mtime !== undefined) setAttributes(stream.path, rest);
    },
  };

  // ---- FS-level wrappers ------------------------------------------------------------------

  const original = {
    stat: FS.stat.bind(FS),
    lstat: FS.lstat.bind(FS),
    unlink: FS.unlink.bind(FS),
    readlink: FS.readlink.bind(FS),
    lookupNode: FS.lookupNode.bind(FS),
    open: FS.open.bind(FS),
    read: FS.read.bind(FS),
    write: FS.write.bind(FS),
    llseek: FS.llseek.bind(FS),
    rename: FS.rename.bind(FS),
    chdir: FS.chdir.bind(FS),
  };

  const onKernelMount = (node: EmNode): boolean => node.node_ops === nodeOps;

  FS.lookupNode = (parent, name) => {
    if (!onKernelMount(parent) || name === '.' || name === '..') return original.lookupNode(parent, name);
    // Always ask the kernel: another process may have changed the entry since we cached it.
    const path = `${pathOf(parent).replace(/\/$/, '')}/${name}`;
    const stat = sys(() => kernel.stat(path, false));
    const hash = FS.hashName(parent.id, name);
    for (let node = FS.nameTable[hash]; node !== undefined && node !== null; node = node.name_next) {
      if (node.parent.id !== parent.id || node.name !== name) continue;
      if (node.kernelIno === stat.ino && (node.mode & S_IFMT) === TYPE_BITS[stat.kind]) {
        node.mode = modeOf(stat);
        return node;
      }
      FS.destroyNode(node);
      break;
    }
    return nodeFor(parent, name, stat);
  };

  // A trailing slash says "a directory" (following a final symlink). Emscripten's path walk
  // drops it, so on the kernel's tree the kernel is asked first: os.stat('f/') is ENOTDIR
  // and os.unlink('f/') leaves f alone, as on Linux (tests/parity).
  const requireDirectory = (path: string): void => {
    if (!path.endsWith('/')) return;
    const full = absolute(path);
    if (isKernelPath(full) && sys(() => kernel.stat(full, true)).kind !== 'dir') throw new ErrnoError(Errno.NOTDIR);
  };
  FS.stat = (path, dontFollow) => (requireDirectory(path), original.stat(path, dontFollow));
  FS.lstat = (path) => (requireDirectory(path), original.lstat(path));
  FS.unlink = (path) => (requireDirectory(path), original.unlink(path));
  FS.readlink = (path) => (requireDirectory(path), original.readlink(path));

  FS.open = (path, flags, mode = 0o666) => {
    if (typeof path !== 'string' || typeof flags !== 'number') return original.open(path, flags, mode);
    const full = absolute(path);
    if (!isKernelPath(full)) return original.open(path, flags, mode);
    const kernelFd = sys(() => kernel.open(full, openFlagsOf(flags), mode & 0o7777));
    return streamForKernelFd(kernelFd, full, flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW));
  };

  FS.read = (stream, buffer, offset, length, position) => {
    if (stream.shared?.kernelFd === undefined) return original.read(stream, buffer, offset, length, position);
    if ((stream.flags & O_ACCMODE) === O_WRONLY) throw new ErrnoError(Errno.BADF);
    const data = sys(() => kernel.read(kernelFdOf(stream), length, position));
    buffer.set(data, offset);
    return data.length;
  };

  FS.write = (stream, buffer, offset, length, position) => {
    if (stream.shared?.kernelFd === undefined) return original.write(stream, buffer, offset, length, position);
    if ((stream.flags & O_ACCMODE) === 0) throw new ErrnoError(Errno.BADF);
    return sys(() => kernel.write(kernelFdOf(stream), buffer.subarray(offset, offset + length), position));
  };

  FS.llseek = (stream, offset, whence) => {
    if (stream.shared?.kernelFd === undefined) return original.llseek(stream, offset, whence);
    if (FS.isDir(stream.node.mode)) {
      // Directory offsets are Emscripten's own (getdents entry index times record size)
      // over the listing it took at the first read; a rewind takes a fresh one.
      const position = whence === 0 ? offset : whence === 1 ? stream.position + offset : -1;
      if (position < 0) throw new ErrnoError(Errno.INVAL);
      if (position === 0 && whence === 0) stream.getdents = null;
      stream.position = position;
      return position;
    }
    const position = sys(() => kernel.seek(kernelFdOf(stream), offset, whence === 0 ? 'set' : whence === 1 ? 'cur' : 'end'));
    stream.position = position;
    return position;
  };

  FS.rename = (oldPath, newPath) => {
    const from = absolute(oldPath);
    const to = absolute(newPath);
    if (!isKernelPath(from) && !isKernelPath(to)) return original.rename(oldPath, newPath);
    if (!isKernelPath(from) || !isKernelPath(to)) throw new ErrnoError(Errno.XDEV);
    sys(() => kernel.rename(from, to));
  };

  FS.chdir = (path) => {
    original.chdir(path);
    const full = FS.cwd();
    // The kernel keeps the cwd children start in; outside its tree (Pyodide's /lib) there
    // is nothing to tell it.
    if (isKernelPath(full)) sys(() => kernel.chdir(full));
  };

  const streamForKernelFd = (kernelFd: number, path: string, flags: number): EmStream => {
    let stat: WireStat;
    try {
      stat = sys(() => kernel.fstat(kernelFd));
    } catch (error) {
      sys(() => kernel.close(kernelFd));
      throw error;
    }
    let node: EmNode | undefined;
    try {
      node = FS.lookupPath(path, { follow: true }).node;
    } catch {
      node = undefined;
    }
    node ??= detachedNode(stat);
    const seekable = stat.kind === 'file' || stat.kind === 'dir';
    const stream = FS.createStream({
      node, path, flags, seekable, position: 0, stream_ops: streamOps,
      shared: { position: 0, flags, kernelFd, kernelRefs: 1 },
    });
    if (stat.kind === 'chardev' && sys(() => kernel.isatty(kernelFd))) stream.tty = { ops: {} };
    return stream;
  };

  /** A node for a descriptor with no path in our tree (pipes, inherited stdio). */
  const detachedNode = (stat: WireStat): EmNode => {
    const node = FS.createNode(FS.root, `kernel-fd-${stat.ino}`, modeOf(stat), 0);
    FS.destroyNode(node);
    node.node_ops = nodeOps;
    node.stream_ops = streamOps;
    node.kernelIno = stat.ino;
    return node;
  };

  for (const entry of options.topLevel) {
    if (entry.name === 'lib') continue;
    const mountpoint = `/${entry.name}`;
    if (entry.kind === 'symlink' && entry.target !== undefined) {
      unmountOrRemove(FS, mountpoint);
      FS.symlink(entry.target, mountpoint);
      continue;
    }
    if (entry.kind !== 'dir') continue;
    // Mounted over Emscripten's own directory of the same name (/dev, /tmp, /home), which
    // the mount hides; removing those trees would fight Emscripten's device mounts.
    const existing = lookupOrUndefined(FS, mountpoint);
    if (existing === undefined) FS.mkdir(mountpoint);
    else if (!FS.isDir(existing.mode)) FS.unlink(mountpoint);
    else if (FS.isMountpoint(existing)) FS.unmount(mountpoint);
    if (existing !== undefined && !FS.isDir(existing.mode)) FS.mkdir(mountpoint);
    FS.mount(kernelFs, {}, mountpoint);
    mounts.add(entry.name);
  }

  return {
    /** Makes Emscripten fd `fd` refer to the process's kernel descriptor `kernelFd`. */
    adopt(fd: number, kernelFd: number, flags: number): EmStream {
      if (FS.streams[fd]) FS.closeStream(fd);
      const stream = streamForKernelFd(kernelFd, `/dev/fd/${kernelFd}`, flags);
      FS.closeStream(stream.fd);
      stream.fd = fd;
      FS.streams[fd] = stream;
      return stream;
    },
    /** A new Emscripten fd for kernel descriptor `kernelFd` (pipes made for subprocesses). */
    wrap(kernelFd: number, flags: number): number {
      return streamForKernelFd(kernelFd, `/dev/fd/${kernelFd}`, flags).fd;
    },
    /** The kernel descriptor behind Emscripten fd `fd` (EBADF if it has none). */
    kernelFd(fd: number): number {
      const stream = FS.streams[fd];
      if (!stream) throw new SyscallError(Errno.BADF, 'bad file descriptor');
      const kernelFd = stream.shared.kernelFd;
      if (kernelFd === undefined) throw new SyscallError(Errno.BADF, 'not a sandbox descriptor');
      return kernelFd;
    },
  };
}

export interface KernelStreams {
  adopt(fd: number, kernelFd: number, flags: number): EmStream;
  wrap(kernelFd: number, flags: number): number;
  kernelFd(fd: number): number;
}

function lookupOrUndefined(FS: EmFS, path: string): EmNode | undefined {
  try {
    return FS.lookupPath(path, { follow: false }).node;
  } catch {
    return undefined;
  }
}

/**
 * Clears Emscripten's own entry at a top-level path so the kernel's can take its place: a
 * mount is unmounted, a tree removed with everything in it, a file or link unlinked (a
 * device node at the top stays; inside a tree every other node goes too).
 */
function unmountOrRemove(FS: EmFS, path: string, inTree = false): void {
  const node = lookupOrUndefined(FS, path);
  if (node === undefined) return;
  if (FS.isMountpoint(node)) FS.unmount(path);
  if (FS.isDir(node.mode)) {
    for (const name of FS.readdir(path)) if (name !== '.' && name !== '..') unmountOrRemove(FS, `${path}/${name}`, true);
    FS.rmdir(path);
  } else if (inTree || FS.isLink(node.mode) || FS.isFile(node.mode)) FS.unlink(path);
}
