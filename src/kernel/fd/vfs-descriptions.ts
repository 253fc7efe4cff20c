// Descriptions backed by the VFS: regular files, directories and device nodes.

import { Errno, fail } from '../errno.js';
import type { DeviceName, Inode } from '../vfs/inode.js';
import { typeBits } from '../vfs/inode.js';
import type { VfsCaller } from '../vfs/caller.js';
import type { Vfs } from '../vfs/vfs.js';
import { VIRTUAL_INO_BASE } from '../vfs/vfs.js';
import { Description, FILETYPE, type StatInfo } from './description.js';
import { wasi } from '@bjorn3/browser_wasi_shim';

export function filetypeOf(inode: Inode): number {
  switch (inode.kind) {
    case 'file':
      return FILETYPE.REGULAR_FILE;
    case 'dir':
      return FILETYPE.DIRECTORY;
    case 'symlink':
      return FILETYPE.SYMBOLIC_LINK;
    case 'chardev':
      return FILETYPE.CHARACTER_DEVICE;
  }
}

export function statOf(vfs: Vfs, inode: Inode): StatInfo {
  const size =
    inode.kind === 'file' ? inode.size : inode.kind === 'dir' ? 4096 : inode.kind === 'symlink' ? new TextEncoder().encode(inode.target).length : 0;
  return {
    dev: inode.ino >= VIRTUAL_INO_BASE ? 2n : 1n,
    ino: BigInt(inode.ino),
    filetype: filetypeOf(inode),
    nlink: BigInt(vfs.nlink(inode)),
    size: BigInt(size),
    atimeNs: inode.atimeNs,
    mtimeNs: inode.mtimeNs,
    ctimeNs: inode.ctimeNs,
    mode: typeBits(inode.kind) | inode.mode,
    uid: inode.uid,
    gid: inode.gid,
  };
}

/** An open regular file: an offset into an inode's bytes. */
export class FileDescription extends Description {
  private offset = 0;

  constructor(
    private readonly vfs: Vfs,
    readonly ino: number,
    readonly readable: boolean,
    readonly writable: boolean,
    private readonly path: string,
  ) {
    super();
    vfs.opened(ino);
  }

  filetype(): number {
    return FILETYPE.REGULAR_FILE;
  }

  label(): string {
    return this.path;
  }

  private inode() {
    const inode = this.vfs.get(this.ino);
    if (inode === undefined || inode.kind !== 'file') fail(Errno.BADF, 'file is gone');
    return inode;
  }

  override read(max: number): Uint8Array {
    if (!this.readable) fail(Errno.BADF, 'not open for reading');
    const bytes = this.vfs.readAt(this.inode(), this.offset, max);
    this.offset += bytes.length;
    return bytes;
  }

  override write(data: Uint8Array): number {
    if (!this.writable) fail(Errno.BADF, 'not open for writing');
    if (this.fdflags & wasi.FDFLAGS_APPEND) this.offset = this.inode().size;
    const written = this.vfs.writeAt(this.ino, this.offset, data);
    this.offset += written;
    return written;
  }

  override seek(offset: bigint, whence: number): bigint {
    let base: number;
    if (whence === wasi.WHENCE_SET) base = 0;
    else if (whence === wasi.WHENCE_CUR) base = this.offset;
    else if (whence === wasi.WHENCE_END) base = this.inode().size;
    else fail(Errno.INVAL, 'bad whence');
    const target = base + Number(offset);
    if (target < 0) fail(Errno.INVAL, 'negative offset');
    this.offset = target;
    return BigInt(target);
  }

  override tell(): bigint {
    return BigInt(this.offset);
  }

  override stat(): StatInfo {
    return statOf(this.vfs, this.inode());
  }

  override setSize(size: number): void {
    if (!this.writable) fail(Errno.INVAL, 'not open for writing');
    this.vfs.truncate(this.ino, size);
  }

  override release(): void {
    this.vfs.closed(this.ino);
  }
}

/**
 * An open inode that is not a regular file (a directory, a device): its stat is the inode's,
 * and seeking it succeeds and stays at 0, as lseek on a directory or /dev/null does on Linux.
 */
abstract class NodeDescription extends Description {
  constructor(
    protected readonly vfs: Vfs,
    readonly ino: number,
  ) {
    super();
  }

  override seek(): bigint {
    return 0n;
  }

  override tell(): bigint {
    return 0n;
  }

  override stat(): StatInfo {
    return statOf(this.vfs, this.vfs.getOrThrow(this.ino));
  }
}

/** An open directory: a starting point for relative paths, and a listing for readdir. */
export class DirectoryDescription extends NodeDescription {
  /** The listing readdir pages through, taken at cookie 0 so cookies stay stable. */
  listing: Array<{ name: string; ino: number; filetype: number }> | undefined;

  constructor(
    vfs: Vfs,
    ino: number,
    readonly path: string,
    /** Set for preopens: the name wasi-libc sees for this directory. */
    readonly preopenName?: string,
  ) {
    super(vfs, ino);
  }

  filetype(): number {
    return FILETYPE.DIRECTORY;
  }

  label(): string {
    return this.path;
  }

  override read(): Uint8Array {
    fail(Errno.ISDIR, 'is a directory');
  }

  override write(): number {
    fail(Errno.BADF, 'is a directory');
  }

  /** Entries including `.` and `..`, as readdir returns them. */
  list(caller: VfsCaller): Array<{ name: string; ino: number; filetype: number }> {
    const dir = this.vfs.getOrThrow(this.ino);
    if (dir.kind !== 'dir') fail(Errno.NOTDIR, 'not a directory');
    const out: Array<{ name: string; ino: number; filetype: number }> = [
      { name: '.', ino: dir.ino, filetype: FILETYPE.DIRECTORY },
      { name: '..', ino: dir.parent, filetype: FILETYPE.DIRECTORY },
    ];
    for (const [name, inode] of this.vfs.list(dir, caller)) out.push({ name, ino: inode.ino, filetype: filetypeOf(inode) });
    return out;
  }
}

/** /dev/null, /dev/zero, /dev/random, /dev/urandom. */
export class DeviceDescription extends NodeDescription {
  constructor(
    vfs: Vfs,
    ino: number,
    readonly device: DeviceName,
  ) {
    super(vfs, ino);
  }

  filetype(): number {
    return FILETYPE.CHARACTER_DEVICE;
  }

  label(): string {
    return `/dev/${this.device}`;
  }

  override read(max: number): Uint8Array {
    switch (this.device) {
      case 'null':
        return new Uint8Array(0);
      case 'zero':
        return new Uint8Array(Math.min(max, 1 << 20));
      case 'random':
      case 'urandom':
        return randomBytes(Math.min(max, 1 << 20));
      case 'tty':
        fail(Errno.NOENT, 'no controlling terminal');
    }
  }

  override write(data: Uint8Array): number {
    if (this.device === 'tty') fail(Errno.NOENT, 'no controlling terminal');
    return data.length;
  }
}

/**
 * Small requests (every process seeds its hash maps and allocator with a few bytes) are cut
 * from a block filled ahead: one getRandomValues call costs more than the rest of such a
 * syscall. Every byte is handed out once.
 */
const RANDOM_BLOCK = 4096;
let randomBlock = new Uint8Array(0);
let randomUsed = 0;

export function randomBytes(length: number): Uint8Array {
  if (length <= 256) {
    if (randomUsed + length > randomBlock.length) {
      randomBlock = crypto.getRandomValues(new Uint8Array(RANDOM_BLOCK));
      randomUsed = 0;
    }
    const out = randomBlock.slice(randomUsed, randomUsed + length);
    randomUsed += length;
    return out;
  }
  const out = new Uint8Array(length);
  for (let offset = 0; offset < length; offset += 65536) {
    crypto.getRandomValues(out.subarray(offset, Math.min(length, offset + 65536)));
  }
  return out;
}
