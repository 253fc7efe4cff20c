// The host API's filesystem calls (readFile, writeFile, readDir, mkdir, stat, rm, mount),
// carried out on the VFS as the sandbox user. Relative paths are relative to /home/user.
// Failures become typed errors that name the path and the errno (or the limit).

import type { DirEntry, StatResult, WriteFileOptions } from '../protocol/messages.js';
import type { MountEntry } from '../protocol/records.js';
import { LimitError, SandboxFsError } from '../protocol/errors.js';
import { Errno, KernelError, fail } from './errno.js';
import type { DirInode, Inode } from './vfs/inode.js';
import { nowNs } from './vfs/inode.js';
import { FsLimitError } from './vfs/limits.js';
import { HOME } from './vfs/boot.js';
import { isValidName, normalizeAbsolute, splitPath } from './vfs/path.js';
import type { VfsCaller } from './vfs/caller.js';
import { ROOT_INO, type Vfs } from './vfs/vfs.js';
import { openInode } from './sys/open.js';

const ERRNO_NAMES = new Map<number, string>(Object.entries(Errno).map(([name, value]) => [value, `E${name}`]));

/** Runs a VFS operation for the host and turns kernel errors into the API's errors. */
export function asApiCall<T>(path: string, operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    if (error instanceof FsLimitError) throw new LimitError(error.limit, error.value, error.message);
    if (error instanceof KernelError) throw new SandboxFsError(ERRNO_NAMES.get(error.errno) ?? 'EIO', path, error.message);
    throw error;
  }
}

export class ApiFs {
  constructor(
    private readonly vfs: Vfs,
    private readonly caller: VfsCaller,
  ) {}

  private absolute(path: string): string {
    return normalizeAbsolute(path, HOME);
  }

  private lookup(path: string, follow = true): Inode {
    return this.vfs.resolve(ROOT_INO, this.absolute(path), follow, this.caller);
  }

  readFile(path: string): Uint8Array {
    return asApiCall(path, () => {
      const inode = this.lookup(path);
      if (inode.kind === 'dir') fail(Errno.ISDIR, 'is a directory');
      if (inode.kind !== 'file') fail(Errno.INVAL, 'not a regular file');
      return inode.data.slice(0, inode.size);
    });
  }

  writeFile(path: string, data: Uint8Array, options: WriteFileOptions = {}): void {
    asApiCall(path, () => {
      const absolute = this.absolute(path);
      if (options.parents) this.mkdirs(absolute.slice(0, absolute.lastIndexOf('/')) || '/', 0o777);
      // open(2)'s rules (sys/open.ts): through symlinks, dangling ones included, as a
      // process's `>` would. A continued write (offset) only finds the file.
      const continued = options.offset !== undefined && options.offset > 0;
      const inode = openInode(this.vfs, this.caller, ROOT_INO, absolute, { write: true, create: !continued }, options.mode ?? 0o666);
      if (inode.kind !== 'file') fail(Errno.INVAL, 'not a regular file');
      // The umask applies at creation; a mode asked for is the mode the file gets.
      if (options.mode !== undefined) this.vfs.chmod(inode.ino, options.mode);
      if (options.offset === undefined) this.vfs.replaceContent(inode.ino, data);
      else this.vfs.writeAt(inode.ino, options.offset, data);
    });
  }

  readDir(path: string): DirEntry[] {
    return asApiCall(path, () => {
      const inode = this.lookup(path);
      if (inode.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
      return this.vfs
        .list(inode, this.caller)
        .map(([name, child]) => ({ name, kind: child.kind }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    });
  }

  mkdir(path: string, options: { recursive?: boolean; mode?: number } = {}): void {
    asApiCall(path, () => {
      const absolute = this.absolute(path);
      if (options.recursive) {
        this.mkdirs(absolute, options.mode ?? 0o777);
        return;
      }
      const { dir, name } = this.vfs.resolveParent(ROOT_INO, absolute, this.caller);
      this.vfs.mkdir(dir, name, this.caller, options.mode ?? 0o777);
    });
  }

  /** symlink(2): a link at `path` holding `target`, which is not looked at. */
  symlink(target: string, path: string): void {
    asApiCall(path, () => {
      const { dir, name } = this.vfs.resolveParent(ROOT_INO, this.absolute(path), this.caller);
      this.vfs.symlink(dir, name, target, this.caller);
    });
  }

  /** mkdir -p: creates each missing directory; an existing non-directory is an error. */
  private mkdirs(absolute: string, mode: number): void {
    let current = this.vfs.getOrThrow(ROOT_INO) as DirInode;
    const parts = splitPath(absolute);
    parts.forEach((part, index) => {
      if (part === '.') return;
      if (part === '..') {
        current = this.vfs.getOrThrow(current.parent) as DirInode;
        return;
      }
      const ino = (this.vfs.getOrThrow(current.ino) as DirInode).entries.get(part);
      let existing = ino === undefined ? undefined : this.vfs.get(ino);
      if (existing?.kind === 'symlink') existing = this.vfs.resolve(current.ino, part, true, this.caller);
      if (existing === undefined) current = this.vfs.mkdir(this.vfs.getOrThrow(current.ino) as DirInode, part, this.caller, mode);
      else if (existing.kind === 'dir') current = existing;
      else fail(index === parts.length - 1 ? Errno.EXIST : Errno.NOTDIR, 'not a directory');
    });
  }

  stat(path: string, options: { follow?: boolean } = {}): StatResult {
    return asApiCall(path, () => {
      const inode = this.lookup(path, options.follow !== false);
      const size = inode.kind === 'file' ? inode.size : inode.kind === 'symlink' ? new TextEncoder().encode(inode.target).length : inode.kind === 'dir' ? 4096 : 0;
      const ms = (ns: bigint): number => Number(ns / 1000n) / 1000;
      const stat: StatResult = {
        kind: inode.kind, size, mode: inode.mode, ino: inode.ino, writable: inode.writable,
        mtimeMs: ms(inode.mtimeNs), atimeMs: ms(inode.atimeNs), ctimeMs: ms(inode.ctimeNs),
      };
      if (inode.kind === 'symlink') stat.target = inode.target;
      return stat;
    });
  }

  rm(path: string, options: { recursive?: boolean; force?: boolean } = {}): void {
    asApiCall(path, () => {
      const absolute = this.absolute(path);
      if (absolute === '/') fail(Errno.PERM, 'refusing to remove the root directory');
      let parent: { dir: DirInode; name: string };
      let inode: Inode;
      try {
        parent = this.vfs.resolveParent(ROOT_INO, absolute, this.caller);
        inode = this.vfs.resolve(parent.dir.ino, parent.name, false, this.caller);
      } catch (error) {
        if (options.force && error instanceof KernelError && error.errno === Errno.NOENT) return;
        throw error;
      }
      if (inode.kind === 'dir') {
        if (!options.recursive) fail(Errno.ISDIR, 'is a directory (use recursive)');
        this.removeTree(inode);
        this.vfs.rmdir(parent.dir, parent.name);
      } else {
        this.vfs.unlink(parent.dir, parent.name);
      }
    });
  }

  private removeTree(dir: DirInode): void {
    for (const [name, child] of this.vfs.list(dir, this.caller)) {
      const current = this.vfs.getOrThrow(dir.ino) as DirInode;
      if (child.kind === 'dir') {
        this.removeTree(child);
        this.vfs.rmdir(current, name);
      } else {
        this.vfs.unlink(current, name);
      }
    }
  }

  /**
   * Creates a read-only tree at `at` from host data. The mount point must not exist yet;
   * its parent must. Entries are validated: relative paths without `..`, known kinds.
   */
  mount(at: string, entries: MountEntry[]): void {
    asApiCall(at, () => {
      const absolute = this.absolute(at);
      const { dir, name } = this.vfs.resolveParent(ROOT_INO, absolute, this.caller);
      if (dir.entries.has(name)) fail(Errno.EXIST, 'mount point already exists');
      const now = nowNs();
      const base = { uid: 1000, gid: 1000, atimeNs: now, mtimeNs: now, ctimeNs: now, writable: false };
      const root = this.vfs.addSystemEntry(dir, name, { ...base, kind: 'dir', mode: 0o555, entries: new Map(), parent: dir.ino }) as DirInode;
      const sorted = [...entries].sort((a, b) => splitPath(a.path).length - splitPath(b.path).length);
      for (const entry of sorted) {
        const parts = splitPath(entry.path);
        if (parts.length === 0 || parts.some((p) => !isValidName(p))) fail(Errno.INVAL, `invalid mount entry path ${JSON.stringify(entry.path)}`);
        let parent = root;
        for (const part of parts.slice(0, -1)) {
          const ino = (this.vfs.getOrThrow(parent.ino) as DirInode).entries.get(part);
          const next = ino === undefined ? undefined : this.vfs.get(ino);
          if (next !== undefined && next.kind === 'dir') parent = next;
          else parent = this.vfs.addSystemEntry(this.vfs.getOrThrow(parent.ino) as DirInode, part, { ...base, kind: 'dir', mode: 0o555, entries: new Map(), parent: parent.ino }) as DirInode;
        }
        const leaf = parts[parts.length - 1] as string;
        const container = this.vfs.getOrThrow(parent.ino) as DirInode;
        if (container.entries.has(leaf)) continue;
        if (entry.kind === 'dir') this.vfs.addSystemEntry(container, leaf, { ...base, kind: 'dir', mode: entry.mode ?? 0o555, entries: new Map(), parent: container.ino });
        else if (entry.kind === 'symlink') this.vfs.addSystemEntry(container, leaf, { ...base, kind: 'symlink', mode: 0o777, target: entry.target ?? '' });
        else {
          const data = entry.data ?? new Uint8Array(0);
          this.vfs.addSystemEntry(container, leaf, { ...base, kind: 'file', mode: entry.mode ?? 0o444, data, size: data.length });
        }
      }
    });
  }
}
