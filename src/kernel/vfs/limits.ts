// Filesystem usage and its limits. Only what the sandbox can write counts: files and
// inodes in writable trees. System files and read-only mounts are the host's and free.

import { Errno, KernelError } from '../errno.js';

export interface FsLimits {
  /** Bytes of file content in writable trees. */
  fsBytes: number;
  /** Files, directories and symlinks in writable trees (Infinity: unlimited). */
  fileCount: number;
}

export interface FsUsage {
  bytes: number;
  inodes: number;
}

/** A write or create refused by a limit: ENOSPC for the process, with the limit named. */
export class FsLimitError extends KernelError {
  constructor(
    readonly limit: keyof FsLimits,
    readonly value: number,
  ) {
    super(
      Errno.NOSPC,
      limit === 'fsBytes'
        ? `filesystem limit reached: fsBytes is ${value} bytes`
        : `filesystem limit reached: fileCount is ${value} files`,
    );
    this.name = 'FsLimitError';
  }
}

export class UsageMeter {
  usage: FsUsage = { bytes: 0, inodes: 0 };
  /** The most recent refusal, so the run's result can name the limit. */
  lastRefusal: FsLimitError | undefined;

  constructor(public limits: FsLimits) {}

  addBytes(delta: number): void {
    if (delta > 0 && this.usage.bytes + delta > this.limits.fsBytes) {
      throw this.refuse(new FsLimitError('fsBytes', this.limits.fsBytes));
    }
    this.usage.bytes += delta;
  }

  addInode(): void {
    if (this.usage.inodes + 1 > this.limits.fileCount) {
      throw this.refuse(new FsLimitError('fileCount', this.limits.fileCount));
    }
    this.usage.inodes += 1;
  }

  removeInode(bytes: number): void {
    this.usage.inodes -= 1;
    this.usage.bytes -= bytes;
  }

  private refuse(error: FsLimitError): FsLimitError {
    this.lastRefusal = error;
    return error;
  }
}
