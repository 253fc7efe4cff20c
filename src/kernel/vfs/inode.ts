// Inodes: files, directories, symlinks and character devices, with modes and times.
//
// Inodes are values owned by an InodeTable generation: an inode whose `gen` is older than
// the table's current generation is shared with a snapshot and must be cloned (see
// InodeTable.mutable) before it is changed.

import type { InodeMeta, RecordKind } from '../../protocol/records.js';

/** The kinds a record carries across to the host (src/protocol/records.ts): the same four. */
export type InodeKind = RecordKind;

export type DeviceName = 'null' | 'zero' | 'random' | 'urandom' | 'tty';

interface InodeCommon extends InodeMeta {
  /** Generation of the table that owns this value (copy-on-write). */
  gen: number;
}

export interface FileInode extends InodeCommon {
  kind: 'file';
  /** Bytes 0..size of `data` are the content; the rest is spare capacity. */
  data: Uint8Array;
  size: number;
  /** Set for /usr/bin entries: the tool this file runs. */
  tool?: string;
}

export interface DirInode extends InodeCommon {
  kind: 'dir';
  entries: Map<string, number>;
  /** The parent directory (the root is its own parent). */
  parent: number;
}

export interface SymlinkInode extends InodeCommon {
  kind: 'symlink';
  target: string;
}

export interface DeviceInode extends InodeCommon {
  kind: 'chardev';
  device: DeviceName;
}

export type Inode = FileInode | DirInode | SymlinkInode | DeviceInode;

/** Linux st_mode type bits, for the `airlock` stat import and ls -l. */
export const S_IFREG = 0o100000;
export const S_IFDIR = 0o040000;
export const S_IFLNK = 0o120000;
export const S_IFCHR = 0o020000;
export const S_IFIFO = 0o010000;

export function typeBits(kind: InodeKind): number {
  switch (kind) {
    case 'file':
      return S_IFREG;
    case 'dir':
      return S_IFDIR;
    case 'symlink':
      return S_IFLNK;
    case 'chardev':
      return S_IFCHR;
  }
}

const EMPTY = new Uint8Array(0);

export function emptyFileData(): Uint8Array {
  return EMPTY;
}

/** A copy of `inode` for generation `gen`; file data and directory maps are copied too. */
export function cloneInode(inode: Inode, gen: number): Inode {
  switch (inode.kind) {
    case 'file':
      return { ...inode, gen, data: inode.size === 0 ? EMPTY : inode.data.slice(0, inode.size) };
    case 'dir':
      return { ...inode, gen, entries: new Map(inode.entries) };
    case 'symlink':
    case 'chardev':
      return { ...inode, gen };
  }
}

/** The current time in nanoseconds since the epoch. */
export function nowNs(): bigint {
  const ms = typeof performance !== 'undefined' ? performance.timeOrigin + performance.now() : Date.now();
  return BigInt(Math.round(ms * 1000)) * 1000n;
}
