// Inodes as they cross to the host after a run: the host keeps them (its mirror of the
// sandbox's filesystem), validates them, persists them, and replays them into a fresh
// worker after a hard kill. Records never carry paths, only inode numbers and names.

export type RecordKind = 'file' | 'dir' | 'symlink' | 'chardev';

/** What every inode has, in the kernel's tree (src/kernel/vfs/inode.ts) and in a record. */
export interface InodeMeta {
  ino: number;
  /** Permission bits (0o7777); the type comes from the kind. */
  mode: number;
  uid: number;
  gid: number;
  atimeNs: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  /** Whether the sandbox may change this inode (false: system tree or a read-only mount). */
  writable: boolean;
}

export interface InodeRecord extends InodeMeta {
  kind: RecordKind;
  /** file: total size; the content may arrive in several fragments. */
  size?: number;
  /** file: bytes [dataOffset, dataOffset + data.length) of the content. */
  data?: Uint8Array;
  dataOffset?: number;
  /** symlink */
  target?: string;
  /** dir */
  entries?: Array<[string, number]>;
  parent?: number;
  /** chardev */
  device?: string;
}

/** A page of changes: records, deleted inode numbers, and whether more pages follow. */
export interface ChangeBatch {
  records: InodeRecord[];
  deleted: number[];
  done: boolean;
}

/** A file, directory or symlink given to mount(): a read-only snapshot of host data. */
export interface MountEntry {
  /** Path relative to the mount point, '/'-separated, no '..'. */
  path: string;
  kind: 'file' | 'dir' | 'symlink';
  data?: Uint8Array;
  target?: string;
  mode?: number;
}
