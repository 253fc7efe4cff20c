// What open(2) means on the VFS: which inode a path names for a given set of flags, and
// when it is created. Written once for every caller — the WASI and Python adapters through
// Syscalls.openat, and the host API's writeFile — because two copies of these rules once
// disagreed (O_CREAT through a dangling symlink created the target for WASI tools and failed
// with EEXIST for Python).
//
// The rules are Linux's (checked against Linux by tests/parity):
// - O_CREAT follows a final symlink, also a dangling one: the file is created where the
//   link points (ENOENT if that directory does not exist); O_NOFOLLOW makes a final
//   symlink ELOOP instead;
// - O_CREAT|O_EXCL follows nothing: anything at the path, a dangling symlink included, is
//   EEXIST;
// - O_CREAT with a trailing slash is EISDIR (whatever is there), as is O_CREAT on an
//   existing directory; without O_CREAT a trailing slash requires a directory (ENOTDIR);
// - write access to a directory is EISDIR, to a read-only inode EROFS; O_DIRECTORY on
//   anything but a directory is ENOTDIR; O_TRUNC empties a regular file.

import { Errno, KernelError, fail } from '../errno.js';
import type { VfsCaller } from '../vfs/caller.js';
import type { Inode } from '../vfs/inode.js';
import { MAX_SYMLINK_HOPS, isFdLink, type Vfs } from '../vfs/vfs.js';

export interface OpenFlags {
  read?: boolean;
  write?: boolean;
  create?: boolean;
  exclusive?: boolean;
  truncate?: boolean;
  append?: boolean;
  directory?: boolean;
  noFollow?: boolean;
  nonBlock?: boolean;
}

/**
 * The inode `path` (from directory `start`) names for open(2) with `flags`, created with
 * `mode` (less the caller's umask) when O_CREAT asks for it. A /proc/<pid>/fd link comes
 * back as it is: opening it shares the descriptor it stands for (the caller's part).
 */
export function openInode(vfs: Vfs, caller: VfsCaller, start: number, path: string, flags: OpenFlags, mode: number): Inode {
  if (path.length === 0) fail(Errno.NOENT, 'empty path');
  const follow = flags.noFollow !== true;
  let inode: Inode;
  if (flags.create === true) {
    if (path.endsWith('/')) {
      vfs.resolveParent(start, path, caller);
      fail(Errno.ISDIR, 'is a directory');
    }
    const existing = lookup(vfs, caller, start, path, follow && flags.exclusive !== true);
    if (existing !== undefined && flags.exclusive === true) fail(Errno.EXIST, 'file exists');
    if (existing !== undefined && existing.kind === 'dir') fail(Errno.ISDIR, 'is a directory');
    inode = existing ?? createAt(vfs, caller, start, path, follow, mode);
  } else {
    inode = vfs.resolve(start, path, follow, caller);
  }
  if (isFdLink(inode) && follow) return inode;
  switch (inode.kind) {
    case 'symlink':
      fail(Errno.LOOP, 'too many levels of symbolic links');
    case 'dir':
      if (flags.write === true || flags.truncate === true) fail(Errno.ISDIR, 'is a directory');
      return inode;
    case 'file':
      if (flags.directory === true) fail(Errno.NOTDIR, 'not a directory');
      if ((flags.write === true || flags.truncate === true) && !inode.writable) fail(Errno.ROFS, 'read-only file system');
      if (flags.truncate === true && inode.size > 0) vfs.truncate(inode.ino, 0);
      return inode;
    case 'chardev':
      if (flags.directory === true) fail(Errno.NOTDIR, 'not a directory');
      return inode;
  }
}

/** The inode at `path`, or undefined when nothing is there (ENOENT). */
function lookup(vfs: Vfs, caller: VfsCaller, start: number, path: string, follow: boolean): Inode | undefined {
  try {
    return vfs.resolve(start, path, follow, caller);
  } catch (error) {
    if (error instanceof KernelError && error.errno === Errno.NOENT) return undefined;
    throw error;
  }
}

/** Creates the file `path` names, where a chain of (dangling) symlinks leads when `follow`. */
function createAt(vfs: Vfs, caller: VfsCaller, startIno: number, path: string, follow: boolean, mode: number): Inode {
  let start = startIno;
  let target = path;
  for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
    if (target.endsWith('/')) fail(Errno.ISDIR, 'is a directory');
    const { dir, name } = vfs.resolveParent(start, target, caller);
    const existingIno = dir.entries.get(name);
    const existing = existingIno === undefined ? undefined : vfs.get(existingIno);
    if (existing === undefined) return vfs.createFile(dir, name, caller, mode);
    if (existing.kind !== 'symlink' || !follow) return existing;
    start = dir.ino;
    target = existing.target;
  }
  fail(Errno.LOOP, 'too many levels of symbolic links');
}
