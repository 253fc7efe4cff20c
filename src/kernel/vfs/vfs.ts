// The virtual filesystem: one inode tree owned by the kernel.
//
// Rules it enforces: paths are walked inode by inode (`..` at the root stays at the
// root), symlink chains longer than 40 hops end in ELOOP, only inodes marked writable may
// change (EROFS elsewhere), and limits are checked on every write and create. Every change
// is recorded so the host can receive exactly the changed inodes after a run.

import { Errno, KernelError, fail } from '../errno.js';
import type { DirInode, FileInode, Inode, SymlinkInode, DeviceInode, DeviceName } from './inode.js';
import { emptyFileData, nowNs } from './inode.js';
import { InodeTable, type TableSnapshot } from './inode-table.js';
import { UsageMeter, type FsLimits, type FsUsage } from './limits.js';
import { NAME_MAX, PATH_MAX, isValidName, splitPath } from './path.js';
import type { VirtualTree } from './virtual-tree.js';
import type { VfsCaller } from './caller.js';

export const ROOT_INO = 1;
export const MAX_SYMLINK_HOPS = 40;

export interface VfsSnapshot {
  table: TableSnapshot;
  usage: FsUsage;
}

/** A symlink that stands for an open descriptor (/proc/<pid>/fd/N): opening it dups. */
export interface FdLinkInode extends SymlinkInode {
  fdRef: { pid: number; fd: number };
}

export function isFdLink(inode: Inode): inode is FdLinkInode {
  return inode.kind === 'symlink' && (inode as Partial<FdLinkInode>).fdRef !== undefined;
}

export class Vfs {
  readonly table = new InodeTable();
  readonly meter: UsageMeter;
  /** Inodes changed since the host last took the changes. */
  readonly changed = new Set<number>();
  /** Open descriptions per inode, so an unlinked file lives until its last close. */
  private readonly openCounts = new Map<number, number>();
  private readonly orphans = new Set<number>();
  /** Directories whose contents are produced on demand (/proc). */
  private readonly virtualRoots = new Map<number, VirtualTree>();

  constructor(limits: FsLimits) {
    this.meter = new UsageMeter(limits);
    const now = nowNs();
    const root: DirInode = {
      kind: 'dir', ino: this.table.allocate(), mode: 0o755, uid: 0, gid: 0,
      atimeNs: now, mtimeNs: now, ctimeNs: now, gen: this.table.gen, writable: false,
      entries: new Map(), parent: ROOT_INO,
    };
    this.table.put(root);
  }

  // ---- lookup -------------------------------------------------------------------------

  get(ino: number): Inode | undefined {
    if (ino >= VIRTUAL_INO_BASE) return this.virtualInode(ino);
    return this.table.get(ino);
  }

  getOrThrow(ino: number): Inode {
    const inode = this.get(ino);
    if (inode === undefined) fail(Errno.STALE, 'stale inode');
    return inode;
  }

  /** Resolves `path` from directory `start`; follows a final symlink when `follow`. */
  resolve(start: number, path: string, follow: boolean, caller: VfsCaller): Inode {
    return this.walk(start, path, follow, caller).inode;
  }

  /** Resolves everything but the last component: the directory and the name in it. */
  resolveParent(start: number, path: string, caller: VfsCaller): { dir: DirInode; name: string } {
    checkPathLength(path);
    const parts = splitPath(path);
    if (parts.length === 0) fail(path.startsWith('/') ? Errno.EXIST : Errno.NOENT, 'no name in path');
    const name = parts.pop() as string;
    const dirPath = path.startsWith('/') ? '/' + parts.join('/') : parts.join('/') || '.';
    const dir = this.walk(start, dirPath, true, caller).inode;
    if (dir.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
    if (utf8Length(name) > NAME_MAX) fail(Errno.NAMETOOLONG, 'name too long');
    return { dir, name };
  }

  private walk(start: number, path: string, follow: boolean, caller: VfsCaller): { inode: Inode } {
    checkPathLength(path);
    if (path.length === 0) fail(Errno.NOENT, 'empty path');
    let parts = splitPath(path);
    // A trailing slash means "this must be a directory", and follows a final symlink.
    if (path.endsWith('/') && parts.length > 0) parts.push('.');
    let dirIno = path.startsWith('/') ? ROOT_INO : start;
    let hops = 0;
    let index = 0;
    let current: Inode = this.getOrThrow(dirIno);
    if (parts.length === 0) return { inode: current };
    while (index < parts.length) {
      const name = parts[index] as string;
      const last = index === parts.length - 1;
      const dir = this.getOrThrow(dirIno);
      if (dir.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
      index += 1;
      if (name === '.') {
        current = dir;
        continue;
      }
      if (name === '..') {
        dirIno = dir.parent;
        current = this.getOrThrow(dirIno);
        continue;
      }
      const child = this.lookupEntry(dir, name, caller);
      if (child === undefined) fail(Errno.NOENT, 'no such file or directory');
      if (child.kind === 'symlink' && (!last || follow)) {
        if (last && isFdLink(child)) return { inode: child };
        hops += 1;
        if (hops > MAX_SYMLINK_HOPS) fail(Errno.LOOP, 'too many levels of symbolic links');
        const target = child.target;
        if (target.length === 0) fail(Errno.NOENT, 'empty symlink');
        const rest = parts.slice(index);
        parts = splitPath(target);
        if (target.endsWith('/')) parts.push('.');
        parts.push(...rest);
        index = 0;
        if (target.startsWith('/')) dirIno = ROOT_INO;
        current = this.getOrThrow(dirIno);
        if (parts.length === 0) return { inode: current };
        continue;
      }
      current = child;
      if (!last) dirIno = child.ino;
    }
    return { inode: current };
  }

  private lookupEntry(dir: DirInode, name: string, caller: VfsCaller): Inode | undefined {
    const virtual = this.virtualTreeOf(dir);
    if (virtual !== undefined) return virtual.lookup(dir, name, caller);
    const ino = dir.entries.get(name);
    return ino === undefined ? undefined : this.get(ino);
  }

  /** Names in a directory, in insertion order (virtual directories list on demand). */
  list(dir: DirInode, caller: VfsCaller): Array<[string, Inode]> {
    const virtual = this.virtualTreeOf(dir);
    if (virtual !== undefined) return virtual.list(dir, caller);
    const out: Array<[string, Inode]> = [];
    for (const [name, ino] of dir.entries) {
      const inode = this.get(ino);
      if (inode !== undefined) out.push([name, inode]);
    }
    return out;
  }

  // ---- virtual trees (/proc) ----------------------------------------------------------

  mountVirtual(dirIno: number, tree: VirtualTree): void {
    this.virtualRoots.set(dirIno, tree);
  }

  private virtualTreeOf(dir: DirInode): VirtualTree | undefined {
    if (this.virtualRoots.size === 0) return undefined;
    const direct = this.virtualRoots.get(dir.ino);
    if (direct !== undefined) return direct;
    if (dir.ino >= VIRTUAL_INO_BASE) {
      for (const tree of this.virtualRoots.values()) if (tree.owns(dir.ino)) return tree;
    }
    return undefined;
  }

  private virtualInode(ino: number): Inode | undefined {
    for (const tree of this.virtualRoots.values()) {
      const inode = tree.get(ino);
      if (inode !== undefined) return inode;
    }
    return undefined;
  }

  // ---- creation -----------------------------------------------------------------------

  private requireWritableDir(dir: DirInode): DirInode {
    if (!dir.writable || dir.ino >= VIRTUAL_INO_BASE) fail(Errno.ROFS, 'read-only file system');
    const mutable = this.table.mutable(dir.ino) as DirInode;
    return mutable;
  }

  private link(dir: DirInode, name: string, inode: Inode): void {
    if (!isValidName(name)) fail(Errno.INVAL, 'invalid name');
    dir.entries.set(name, inode.ino);
    const now = nowNs();
    dir.mtimeNs = now;
    dir.ctimeNs = now;
    this.touchChanged(dir.ino);
  }

  private newCommon(caller: VfsCaller, mode: number, writable: boolean) {
    const now = nowNs();
    return {
      ino: this.table.allocate(), mode: mode & ~caller.umask & 0o7777, uid: caller.uid, gid: caller.gid,
      atimeNs: now, mtimeNs: now, ctimeNs: now, gen: this.table.gen, writable,
    };
  }

  /** Creates a regular file; EEXIST if the name is taken. */
  createFile(dir: DirInode, name: string, caller: VfsCaller, mode = 0o666): FileInode {
    const parent = this.requireWritableDir(dir);
    if (parent.entries.has(name)) fail(Errno.EXIST, 'file exists');
    this.meter.addInode();
    const file: FileInode = { kind: 'file', ...this.newCommon(caller, mode, true), data: emptyFileData(), size: 0 };
    this.table.put(file);
    this.link(parent, name, file);
    this.touchChanged(file.ino);
    return file;
  }

  mkdir(dir: DirInode, name: string, caller: VfsCaller, mode = 0o777): DirInode {
    const parent = this.requireWritableDir(dir);
    if (name === '.' || name === '..' || parent.entries.has(name)) fail(Errno.EXIST, 'file exists');
    this.meter.addInode();
    const created: DirInode = { kind: 'dir', ...this.newCommon(caller, mode, true), entries: new Map(), parent: parent.ino };
    this.table.put(created);
    this.link(parent, name, created);
    this.touchChanged(created.ino);
    return created;
  }

  symlink(dir: DirInode, name: string, target: string, caller: VfsCaller): SymlinkInode {
    const parent = this.requireWritableDir(dir);
    if (parent.entries.has(name) || name === '.' || name === '..') fail(Errno.EXIST, 'file exists');
    if (utf8Length(target) > PATH_MAX) fail(Errno.NAMETOOLONG, 'symlink target too long');
    this.meter.addInode();
    const link: SymlinkInode = { kind: 'symlink', ...this.newCommon({ ...caller, umask: 0 }, 0o777, true), target };
    this.table.put(link);
    this.link(parent, name, link);
    this.touchChanged(link.ino);
    return link;
  }

  // ---- system tree construction (boot and read-only mounts; no limits apply) ----------

  /** Adds an inode that the sandbox cannot change (writable=false) or a writable root. */
  addSystemEntry(dir: DirInode, name: string, inode: DistributiveOmit<Inode, 'ino' | 'gen'>): Inode {
    const full = { ...inode, ino: this.table.allocate(), gen: this.table.gen } as Inode;
    if (full.kind === 'dir') full.parent = dir.ino;
    this.table.put(full);
    const parent = this.table.mutable(dir.ino) as DirInode;
    parent.entries.set(name, full.ino);
    this.touchChanged(parent.ino);
    this.touchChanged(full.ino);
    return full;
  }

  /** Removes a system entry (an installed package's file, by `pkg remove`); no-op when absent. */
  removeSystemEntry(dir: DirInode, name: string): void {
    const ino = dir.entries.get(name);
    if (ino === undefined) return;
    const parent = this.table.mutable(dir.ino) as DirInode;
    parent.entries.delete(name);
    this.touchDir(parent);
    this.release(this.getOrThrow(ino));
  }

  // ---- removal and rename -------------------------------------------------------------

  unlink(dir: DirInode, name: string): void {
    const parent = this.requireWritableDir(dir);
    const ino = parent.entries.get(name);
    if (ino === undefined) fail(Errno.NOENT, 'no such file or directory');
    const inode = this.getOrThrow(ino);
    if (inode.kind === 'dir') fail(Errno.ISDIR, 'is a directory');
    parent.entries.delete(name);
    this.touchDir(parent);
    this.release(inode);
  }

  rmdir(dir: DirInode, name: string): void {
    if (name === '.') fail(Errno.INVAL, 'invalid argument');
    if (name === '..') fail(Errno.NOTEMPTY, 'directory not empty');
    const parent = this.requireWritableDir(dir);
    const ino = parent.entries.get(name);
    if (ino === undefined) fail(Errno.NOENT, 'no such file or directory');
    const inode = this.getOrThrow(ino);
    if (inode.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
    if (inode.entries.size > 0) fail(Errno.NOTEMPTY, 'directory not empty');
    if (this.virtualRoots.has(ino)) fail(Errno.PERM, 'virtual directory');
    parent.entries.delete(name);
    this.touchDir(parent);
    this.release(inode);
  }

  rename(fromDir: DirInode, fromName: string, toDir: DirInode, toName: string): void {
    if (fromName === '.' || fromName === '..' || toName === '.' || toName === '..') fail(Errno.INVAL, 'invalid argument');
    const ino = fromDir.entries.get(fromName);
    if (ino === undefined) fail(Errno.NOENT, 'no such file or directory');
    const source = this.getOrThrow(ino);
    const existingIno = toDir.entries.get(toName);
    if (existingIno === ino) return;
    if (source.kind === 'dir' && this.isAncestor(source.ino, toDir.ino)) fail(Errno.INVAL, 'cannot move a directory into itself');
    const from = this.requireWritableDir(fromDir);
    const to = from.ino === toDir.ino ? from : this.requireWritableDir(toDir);
    if (!source.writable) fail(Errno.ROFS, 'read-only file system');
    if (existingIno !== undefined) {
      const existing = this.getOrThrow(existingIno);
      if (source.kind === 'dir' && existing.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
      if (source.kind !== 'dir' && existing.kind === 'dir') fail(Errno.ISDIR, 'is a directory');
      if (existing.kind === 'dir' && existing.entries.size > 0) fail(Errno.NOTEMPTY, 'directory not empty');
      to.entries.delete(toName);
      this.release(existing);
    }
    from.entries.delete(fromName);
    to.entries.set(toName, ino);
    this.touchDir(from);
    if (to !== from) this.touchDir(to);
    const moved = this.table.mutable(ino) as Inode;
    moved.ctimeNs = nowNs();
    if (moved.kind === 'dir') moved.parent = to.ino;
    this.touchChanged(ino);
  }

  private isAncestor(ancestor: number, ino: number): boolean {
    let current = ino;
    for (let depth = 0; depth < 100000; depth++) {
      if (current === ancestor) return true;
      const inode = this.table.get(current);
      if (inode === undefined || inode.kind !== 'dir' || current === ROOT_INO) return false;
      current = inode.parent;
    }
    return false;
  }

  private touchDir(dir: DirInode): void {
    const now = nowNs();
    dir.mtimeNs = now;
    dir.ctimeNs = now;
    this.touchChanged(dir.ino);
  }

  /** Drops an inode whose last name is gone, unless a descriptor still holds it open. */
  private release(inode: Inode): void {
    if ((this.openCounts.get(inode.ino) ?? 0) > 0) {
      this.orphans.add(inode.ino);
      return;
    }
    this.destroy(inode);
  }

  private destroy(inode: Inode): void {
    if (inode.writable) this.meter.removeInode(inode.kind === 'file' ? inode.size : 0);
    this.table.delete(inode.ino);
    this.touchChanged(inode.ino);
  }

  opened(ino: number): void {
    this.openCounts.set(ino, (this.openCounts.get(ino) ?? 0) + 1);
  }

  closed(ino: number): void {
    const count = (this.openCounts.get(ino) ?? 1) - 1;
    if (count > 0) {
      this.openCounts.set(ino, count);
      return;
    }
    this.openCounts.delete(ino);
    if (this.orphans.delete(ino)) {
      const inode = this.table.get(ino);
      if (inode !== undefined) this.destroy(inode);
    }
  }

  // ---- file content -------------------------------------------------------------------

  readAt(file: FileInode, offset: number, length: number): Uint8Array {
    if (offset >= file.size) return new Uint8Array(0);
    return file.data.subarray(offset, Math.min(file.size, offset + length));
  }

  writeAt(ino: number, offset: number, bytes: Uint8Array): number {
    const current = this.getOrThrow(ino);
    if (current.kind !== 'file') fail(Errno.INVAL, 'not a regular file');
    if (!current.writable) fail(Errno.ROFS, 'read-only file system');
    const end = offset + bytes.length;
    if (end > current.size) this.meter.addBytes(end - current.size);
    const file = this.table.mutable(ino) as FileInode;
    ensureCapacity(file, end);
    file.data.set(bytes, offset);
    if (end > file.size) file.size = end;
    const now = nowNs();
    file.mtimeNs = now;
    file.ctimeNs = now;
    this.touchChanged(ino);
    return bytes.length;
  }

  truncate(ino: number, size: number): void {
    const current = this.getOrThrow(ino);
    if (current.kind === 'dir') fail(Errno.ISDIR, 'is a directory');
    if (current.kind !== 'file') fail(Errno.INVAL, 'not a regular file');
    if (!current.writable) fail(Errno.ROFS, 'read-only file system');
    if (size > current.size) this.meter.addBytes(size - current.size);
    else this.meter.usage.bytes -= current.size - size;
    const file = this.table.mutable(ino) as FileInode;
    if (size > file.size) {
      ensureCapacity(file, size);
      file.data.fill(0, file.size, size);
    } else if (size < file.data.length / 4) {
      file.data = file.data.slice(0, size);
    }
    file.size = size;
    const now = nowNs();
    file.mtimeNs = now;
    file.ctimeNs = now;
    this.touchChanged(ino);
  }

  /** Replaces the whole content (host API writes). */
  replaceContent(ino: number, bytes: Uint8Array): void {
    this.truncate(ino, 0);
    this.writeAt(ino, 0, bytes);
  }

  setTimes(ino: number, atimeNs: bigint | undefined, mtimeNs: bigint | undefined): void {
    const current = this.getOrThrow(ino);
    if (!current.writable) fail(Errno.ROFS, 'read-only file system');
    const inode = this.table.mutable(ino) as Inode;
    if (atimeNs !== undefined) inode.atimeNs = atimeNs;
    if (mtimeNs !== undefined) inode.mtimeNs = mtimeNs;
    inode.ctimeNs = nowNs();
    this.touchChanged(ino);
  }

  chmod(ino: number, mode: number): void {
    const current = this.getOrThrow(ino);
    if (!current.writable) fail(Errno.ROFS, 'read-only file system');
    const inode = this.table.mutable(ino) as Inode;
    inode.mode = mode & 0o7777;
    inode.ctimeNs = nowNs();
    this.touchChanged(ino);
  }

  /** Link count as stat reports it (no hard links: 1, or 2 + subdirectories). */
  nlink(inode: Inode): number {
    if (inode.kind !== 'dir') return 1;
    let count = 2;
    for (const ino of inode.entries.values()) if (this.table.get(ino)?.kind === 'dir') count += 1;
    return count;
  }

  // ---- snapshots and change tracking --------------------------------------------------

  snapshot(): VfsSnapshot {
    return { table: this.table.snapshot(), usage: { ...this.meter.usage } };
  }

  restore(snap: VfsSnapshot): void {
    this.table.restore(snap.table);
    this.meter.usage = { ...snap.usage };
    this.orphans.clear();
    this.changed.clear();
  }

  touchChanged(ino: number): void {
    if (ino < VIRTUAL_INO_BASE) this.changed.add(ino);
  }

  /** The changed inode numbers since the last call, and forgets them. */
  takeChanged(): number[] {
    const list = [...this.changed].sort((a, b) => a - b);
    this.changed.clear();
    return list;
  }

  /** Adds a device node (boot only). */
  addDevice(dir: DirInode, name: string, device: DeviceName, mode: number): DeviceInode {
    const now = nowNs();
    return this.addSystemEntry(dir, name, {
      kind: 'chardev', device, mode, uid: 0, gid: 0, atimeNs: now, mtimeNs: now, ctimeNs: now, writable: false,
    }) as DeviceInode;
  }

  /**
   * Rebuilds an inode from a persisted record (used when restoring from the host). An
   * inode made for the current generation is taken as it is (a fork loads thousands).
   */
  loadInode(inode: Inode): void {
    const owned = inode.gen === this.table.gen ? inode : ({ ...inode, gen: this.table.gen } as Inode);
    this.table.reserveThrough(inode.ino);
    const previous = this.table.get(inode.ino);
    if (previous !== undefined && previous.writable) this.meter.removeInode(previous.kind === 'file' ? previous.size : 0);
    if (owned.writable) {
      this.meter.usage.inodes += 1;
      if (owned.kind === 'file') this.meter.usage.bytes += owned.size;
    }
    this.table.put(owned);
  }

  /** Removes a persisted inode by number (used when restoring from the host). */
  unloadInode(ino: number): void {
    const previous = this.table.get(ino);
    if (previous === undefined) return;
    if (previous.writable) this.meter.removeInode(previous.kind === 'file' ? previous.size : 0);
    this.table.delete(ino);
  }

  /** Raises an error unless `inode` may be changed (for metadata calls on any inode). */
  static requireWritable(inode: Inode): void {
    if (!inode.writable) throw new KernelError(Errno.ROFS, 'read-only file system');
  }
}

/** Inode numbers at or above this are synthesized on demand (/proc), never stored. */
export const VIRTUAL_INO_BASE = 0x40000000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function ensureCapacity(file: FileInode, size: number): void {
  if (file.data.length >= size) return;
  const grown = Math.max(size, Math.min(file.data.length * 2, file.data.length + 64 * 1024 * 1024), 256);
  const data = new Uint8Array(grown);
  data.set(file.data.subarray(0, file.size));
  file.data = data;
}

/** Length in bytes of `text` as UTF-8 (escaped bytes count as one). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i += 1;
    } else if (code >= 0xdc80 && code <= 0xdcff) bytes += 1;
    else bytes += 3;
  }
  return bytes;
}

function checkPathLength(path: string): void {
  if (path.length > PATH_MAX / 4 && utf8Length(path) > PATH_MAX) fail(Errno.NAMETOOLONG, 'file name too long');
}
