// A directory whose contents are produced when looked up (used for /proc). Its inodes are
// numbered from VIRTUAL_INO_BASE up, are never stored in the table and never persisted.

import type { DirInode, Inode } from './inode.js';
import type { VfsCaller } from './caller.js';

export interface VirtualTree {
  /** Whether a synthesized directory inode belongs to this tree. */
  owns(ino: number): boolean;
  get(ino: number): Inode | undefined;
  lookup(dir: DirInode, name: string, caller: VfsCaller): Inode | undefined;
  list(dir: DirInode, caller: VfsCaller): Array<[string, Inode]>;
}
