// Copy-out is hostile input: whatever a guest hands back was written by the code under
// test. Every backend feeds the entries it found to one CopyOutWriter, which decides before
// a byte reaches the host disk: only regular files and directories; no symlinks, hard
// links, devices or FIFOs; no absolute paths, `..`, NUL or over-long names; caps on bytes
// and entries. Files are created with O_EXCL under the run's own copy-out root, so nothing
// already there (or planted meanwhile) is followed or overwritten. A refusal is recorded
// with its reason, never fatal to the run.

import { constants, mkdirSync, openSync, writeSync, closeSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { GATE_LIMITS } from '../../src/protocol/limits.js';

export type CopyOutKind = 'file' | 'dir' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'other';

export interface CopyOutCaps {
  bytes: number;
  entries: number;
  pathBytes: number;
}

export const DEFAULT_COPY_OUT_CAPS: CopyOutCaps = {
  bytes: GATE_LIMITS.copyOutBytes,
  entries: GATE_LIMITS.copyOutEntries,
  pathBytes: GATE_LIMITS.copyOutPathBytes,
};

/** The relative path's parts, or a reason it is refused. */
export function safeRelativeParts(path: string, caps: CopyOutCaps = DEFAULT_COPY_OUT_CAPS): string[] | string {
  if (Buffer.byteLength(path) > caps.pathBytes) return `path longer than ${caps.pathBytes} bytes (GATE_LIMITS.copyOutPathBytes)`;
  if (path.includes('\0')) return 'NUL in path';
  if (path.startsWith('/')) return 'absolute path';
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.some((part) => part === '..')) return "'..' in path";
  if (parts.length === 0) return 'empty path';
  return parts;
}

export class CopyOutWriter {
  readonly refusals: string[] = [];
  private bytes = 0;
  private entries = 0;
  private readonly createdDirs = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly caps: CopyOutCaps = DEFAULT_COPY_OUT_CAPS,
  ) {
    mkdirSync(root, { recursive: true });
  }

  get bytesWritten(): number {
    return this.bytes;
  }

  private refuse(path: string, reason: string): false {
    if (this.refusals.length < 100) this.refusals.push(`${JSON.stringify(path)}: ${reason}`);
    return false;
  }

  /** Decides whether an entry may be written; counts it against the entry cap. */
  admit(path: string, kind: CopyOutKind, size: number, target?: string): string[] | false {
    const parts = safeRelativeParts(path, this.caps);
    if (typeof parts === 'string') return this.refuse(path, parts);
    if (kind === 'symlink') return this.refuse(path, `symlink${target === undefined ? '' : ` to ${JSON.stringify(target.slice(0, 200))}`} refused`);
    if (kind === 'hardlink') return this.refuse(path, 'hard link refused');
    if (kind !== 'file' && kind !== 'dir') return this.refuse(path, `${kind} refused (only regular files and directories are copied out)`);
    if (this.entries + 1 > this.caps.entries) return this.refuse(path, `more than ${this.caps.entries} entries (GATE_LIMITS.copyOutEntries)`);
    if (kind === 'file' && this.bytes + size > this.caps.bytes) return this.refuse(path, `${size} bytes would pass the copy-out cap of ${this.caps.bytes} bytes (GATE_LIMITS.copyOutBytes)`);
    this.entries += 1;
    return parts;
  }

  /** Creates the directories of `parts` (each must be a directory this writer made). */
  private ensureDirs(parts: string[]): string | undefined {
    let dir = this.root;
    for (const part of parts) {
      dir = join(dir, part);
      if (this.createdDirs.has(dir)) continue;
      try {
        mkdirSync(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return `cannot create directory: ${(error as Error).message}`;
        if (!lstatSync(dir).isDirectory()) return 'a parent is not a directory';
      }
      this.createdDirs.add(dir);
    }
    return undefined;
  }

  dir(path: string): boolean {
    const parts = this.admit(path, 'dir', 0);
    if (parts === false) return false;
    const problem = this.ensureDirs(parts);
    return problem === undefined ? true : this.refuse(path, problem);
  }

  /**
   * Opens a file for writing if it may be written (decided before any byte is read from
   * the guest); the sink refuses bytes past the declared size.
   */
  openFile(path: string, size: number): FileSink | false {
    const parts = this.admit(path, 'file', size);
    if (parts === false) return false;
    const problem = this.ensureDirs(parts.slice(0, -1));
    if (problem !== undefined) return this.refuse(path, problem);
    let fd: number;
    try {
      fd = openSync(join(this.root, ...parts), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    } catch (error) {
      return this.refuse(path, `cannot create: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    let written = 0;
    return {
      write: (chunk) => {
        if (written + chunk.length > size) throw new Error(`${path}: more bytes than declared`);
        writeSync(fd, chunk);
        written += chunk.length;
        this.bytes += chunk.length;
      },
      close: () => closeSync(fd),
    };
  }

  /** Writes a whole file held in memory. */
  file(path: string, data: Uint8Array): boolean {
    const sink = this.openFile(path, data.length);
    if (sink === false) return false;
    try {
      sink.write(data);
    } finally {
      sink.close();
    }
    return true;
  }
}

export interface FileSink {
  write(chunk: Uint8Array): void;
  close(): void;
}
