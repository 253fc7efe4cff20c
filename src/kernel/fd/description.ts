// Open file descriptions: what a descriptor refers to. Several descriptors (after dup or
// spawn) share one description and its offset, as on Unix.
//
// Like browser_wasi_shim's `Fd`, every operation defaults to an explicit errno, so a kind
// of descriptor that does not support something says so instead of failing by accident.

import { wasi } from '@bjorn3/browser_wasi_shim';
import { Errno, fail } from '../errno.js';
import type { MaybeBlocked } from './blocker.js';
import type { Tty } from './tty.js';

export interface StatInfo {
  dev: bigint;
  ino: bigint;
  filetype: number;
  nlink: bigint;
  size: bigint;
  atimeNs: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  /** Full st_mode (type and permission bits). */
  mode: number;
  uid: number;
  gid: number;
}

export abstract class Description {
  /** Descriptors (in all processes) that refer to this description. */
  refs = 0;
  /** WASI fdflags (APPEND, NONBLOCK, ...). */
  fdflags = 0;

  abstract filetype(): number;

  /** What readlink of /proc/<pid>/fd/N shows. */
  abstract label(): string;

  read(_max: number): MaybeBlocked<Uint8Array> {
    fail(Errno.BADF, 'not open for reading');
  }

  write(_data: Uint8Array): MaybeBlocked<number> {
    fail(Errno.BADF, 'not open for writing');
  }

  seek(_offset: bigint, _whence: number): bigint {
    fail(Errno.SPIPE, 'illegal seek');
  }

  tell(): bigint {
    fail(Errno.SPIPE, 'illegal seek');
  }

  stat(): StatInfo {
    return {
      dev: 0n, ino: 0n, filetype: this.filetype(), nlink: 1n, size: 0n,
      atimeNs: 0n, mtimeNs: 0n, ctimeNs: 0n, mode: 0o600, uid: 1000, gid: 1000,
    };
  }

  setSize(_size: number): void {
    fail(Errno.INVAL, 'not a regular file');
  }

  /** Whether programs should treat this as a terminal (isatty). */
  isTerminal(): boolean {
    return false;
  }

  /** The terminal this description is (its mode and size), when it is one. */
  tty(): Tty | undefined {
    return undefined;
  }

  /** Called once when the last descriptor referring to it closes. */
  release(): void {}

  /** WASI rights: wasi-libc's isatty needs seek/tell absent on terminals. */
  rights(): bigint {
    return this.isTerminal() ? ALL_RIGHTS & ~(RIGHTS_FD_SEEK | RIGHTS_FD_TELL) : ALL_RIGHTS;
  }
}

export const RIGHTS_FD_SEEK = 1n << 2n;
export const RIGHTS_FD_TELL = 1n << 5n;
export const ALL_RIGHTS = (1n << 30n) - 1n;

/** Descriptor flags (WASI's numbering): the ones the kernel keeps. */
export const FDFLAG = { APPEND: wasi.FDFLAGS_APPEND, NONBLOCK: wasi.FDFLAGS_NONBLOCK } as const;

/** lseek's whence (WASI's numbering). */
export const WHENCE = { SET: wasi.WHENCE_SET, CUR: wasi.WHENCE_CUR, END: wasi.WHENCE_END } as const;

export const FILETYPE = {
  UNKNOWN: wasi.FILETYPE_UNKNOWN,
  CHARACTER_DEVICE: wasi.FILETYPE_CHARACTER_DEVICE,
  DIRECTORY: wasi.FILETYPE_DIRECTORY,
  REGULAR_FILE: wasi.FILETYPE_REGULAR_FILE,
  SYMBOLIC_LINK: wasi.FILETYPE_SYMBOLIC_LINK,
} as const;
