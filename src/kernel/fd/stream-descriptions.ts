// Descriptions for byte streams: pipe ends, and the sinks and sources that connect a run's
// stdin, stdout and stderr to the host.

import { wasi } from '@bjorn3/browser_wasi_shim';
import { Errno, fail } from '../errno.js';
import type { MaybeBlocked } from './blocker.js';
import { Pipe } from './pipe.js';
import { S_IFIFO, S_IFCHR } from '../vfs/inode.js';
import { Description, FILETYPE, type StatInfo } from './description.js';
import type { Tty } from './tty.js';

function streamStat(filetype: number, mode: number, ino: number): StatInfo {
  return {
    dev: 3n, ino: BigInt(ino), filetype, nlink: 1n, size: 0n,
    atimeNs: 0n, mtimeNs: 0n, ctimeNs: 0n, mode, uid: 1000, gid: 1000,
  };
}

/** Either end of a pipe: what the two have alike (type, name, stat, O_NONBLOCK). */
abstract class PipeEnd extends Description {
  constructor(readonly pipe: Pipe) {
    super();
  }

  filetype(): number {
    return FILETYPE.UNKNOWN;
  }

  label(): string {
    return `pipe:[${this.pipe.id}]`;
  }

  override stat(): StatInfo {
    return streamStat(FILETYPE.UNKNOWN, S_IFIFO | 0o600, this.pipe.id);
  }

  protected get nonblocking(): boolean {
    return (this.fdflags & wasi.FDFLAGS_NONBLOCK) !== 0;
  }
}

export class PipeReader extends PipeEnd {
  constructor(pipe: Pipe) {
    super(pipe);
    pipe.readers += 1;
  }

  override read(max: number): MaybeBlocked<Uint8Array> {
    return this.pipe.read(max, this.nonblocking);
  }

  override stat(): StatInfo {
    return { ...super.stat(), size: BigInt(this.pipe.available) };
  }

  override release(): void {
    this.pipe.closeReader();
  }
}

export class PipeWriter extends PipeEnd {
  constructor(
    pipe: Pipe,
    private readonly host = false,
  ) {
    super(pipe);
    pipe.writers += 1;
    if (host) pipe.hostWriters += 1;
  }

  override write(data: Uint8Array): MaybeBlocked<number> {
    return this.pipe.write(data, this.nonblocking);
  }

  override release(): void {
    this.pipe.closeWriter(this.host);
  }
}

/** Where an output sink's bytes go: the kernel's capture of the current run. */
export interface OutputTarget {
  write(stream: 'stdout' | 'stderr', bytes: Uint8Array): void;
  /** Whether the session presents a terminal (programs then see isatty = true). */
  readonly terminal: boolean;
  /** The terminal's mode and size (while `terminal`). */
  readonly tty?: Tty;
}

/**
 * A run's stdout or stderr. Writes never block: the capture keeps up to the limit and
 * reports `truncated` past it, so a chatty program cannot stall the sandbox.
 */
export class OutputSink extends Description {
  constructor(
    readonly stream: 'stdout' | 'stderr',
    private readonly target: OutputTarget,
  ) {
    super();
  }

  filetype(): number {
    return this.target.terminal ? FILETYPE.CHARACTER_DEVICE : FILETYPE.UNKNOWN;
  }

  label(): string {
    return this.target.terminal ? '/dev/pts/0' : `pipe:[${this.stream}]`;
  }

  override isTerminal(): boolean {
    return this.target.terminal;
  }

  override tty(): Tty | undefined {
    return this.target.terminal ? this.target.tty : undefined;
  }

  override write(data: Uint8Array): number {
    this.target.write(this.stream, data);
    return data.length;
  }

  override stat(): StatInfo {
    return this.target.terminal
      ? streamStat(FILETYPE.CHARACTER_DEVICE, S_IFCHR | 0o620, 0)
      : streamStat(FILETYPE.UNKNOWN, S_IFIFO | 0o600, this.stream === 'stdout' ? 1 : 2);
  }
}

/** Where an input source's bytes come from: the current run's stdin. */
export interface InputSource {
  read(max: number): MaybeBlocked<Uint8Array>;
  readonly terminal: boolean;
  readonly tty?: Tty;
}

/** A run's stdin: given bytes, the terminal, or nothing (EOF at once). */
export class InputDescription extends Description {
  constructor(private readonly source: InputSource) {
    super();
  }

  filetype(): number {
    return this.source.terminal ? FILETYPE.CHARACTER_DEVICE : FILETYPE.UNKNOWN;
  }

  label(): string {
    return this.source.terminal ? '/dev/pts/0' : 'pipe:[stdin]';
  }

  override isTerminal(): boolean {
    return this.source.terminal;
  }

  override tty(): Tty | undefined {
    return this.source.terminal ? this.source.tty : undefined;
  }

  override read(max: number): MaybeBlocked<Uint8Array> {
    return this.source.read(max);
  }

  override write(): number {
    fail(Errno.BADF, 'stdin is not open for writing');
  }

  override stat(): StatInfo {
    return this.source.terminal ? streamStat(FILETYPE.CHARACTER_DEVICE, S_IFCHR | 0o620, 0) : streamStat(FILETYPE.UNKNOWN, S_IFIFO | 0o600, 0);
  }
}

/**
 * /dev/tty: the session's terminal, whatever the process's stdin and stdout are (a pager
 * reading a pipe reads its keys here). Reads take the terminal's input, writes go to the
 * run's stdout.
 */
export class TerminalDescription extends Description {
  constructor(
    private readonly source: InputSource,
    private readonly target: OutputTarget,
  ) {
    super();
  }

  filetype(): number {
    return FILETYPE.CHARACTER_DEVICE;
  }

  label(): string {
    return '/dev/pts/0';
  }

  override isTerminal(): boolean {
    return true;
  }

  override tty(): Tty | undefined {
    return this.source.tty;
  }

  override read(max: number): MaybeBlocked<Uint8Array> {
    return this.source.read(max);
  }

  override write(data: Uint8Array): number {
    this.target.write('stdout', data);
    return data.length;
  }

  override stat(): StatInfo {
    return streamStat(FILETYPE.CHARACTER_DEVICE, S_IFCHR | 0o620, 0);
  }
}
