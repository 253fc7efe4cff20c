// The writer of a hash-chained JSONL file (chain-line.ts): the audit log's file sink and
// the gate runner's attempts ledger both append through it.
//
// append() chains the event at once (its position and hash are fixed in call order) and
// queues the line; the queue is written in batches, one write at a time, so appending
// never waits for the disk. Rotation by size renames FILE to FILE.<k> and continues the
// chain in a fresh FILE whose first line says so. Signed checkpoints of the written head go
// to FILE.checkpoints. One writer per chain: FILE.lock holds the writer's pid. Opening a
// file whose last line is torn (a crash mid-append) is refused unless repair is asked for,
// which truncates the torn bytes and appends an `audit.repaired` event saying so.

import { open, rename, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { AUDIT_SCHEMA_VERSION, type AuditFields } from '../../protocol/audit/schema.js';
import { CHAIN_LINE_MAX_BYTES, GENESIS_PREV, LineBuffer, type ChainHead } from './chain-line.js';
import { chainIdOf, checkpointsPath, fileSize, listSegments, lockPath, readFirstLine, readTail } from './chain-files.js';
import { signCheckpoint } from './checkpoint.js';
import { blake3Hex, toHex } from './hash.js';
import type { NoteSigner } from './signed-note.js';
import { processAlive } from '../process-alive.js';

export class ChainLogError extends Error {
  constructor(
    readonly code: 'ETORN' | 'ELOCKED' | 'EHEAD' | 'EBROKEN' | 'ETOOLONG' | 'ECLOSED' | 'EWRITE',
    message: string,
  ) {
    super(message);
    this.name = 'ChainLogError';
  }
}

export interface ChainLogOptions {
  /** Rotate when FILE reaches this many bytes (default: never). */
  maxBytes?: number;
  /** Signs checkpoints of the written head into FILE.checkpoints. */
  signer?: NoteSigner;
  /** A checkpoint after this many lines (default 10,000) … */
  checkpointEvery?: number;
  /** … or this long after the last one, if lines were written since (default 5 s). */
  checkpointIntervalMs?: number;
  /** Refuse to open unless the chain's head is this (a ledger that knows where it stopped). */
  expectHead?: ChainHead;
  /**
   * How long appended lines wait to be written with the ones after them (default 25 ms): one
   * write per batch instead of one per event keeps the sink off a busy host's back. flush()
   * and close() write at once.
   */
  flushDelayMs?: number;
  /** A torn last line: refuse to open (default), or repair it (truncate + audit.repaired). */
  onTorn?: 'refuse' | 'repair';
  /** The time for events the log writes itself (tests). */
  now?: () => Date;
}

/** What a repair did. */
export interface Repair {
  file: string;
  line: number;
  truncatedBytes: number;
  truncatedHash: string;
}

/** Lines to write (bytes), and the rotations between them. */
type Queued = Uint8Array | { rotate: number };

/** An event the log writes about itself (chain start, rotation, repair). */
function logEvent<T extends 'audit.chain_started' | 'audit.segment_started' | 'audit.repaired'>(type: T, fields: AuditFields<T>, n: number, time: Date): string {
  return JSON.stringify({ v: AUDIT_SCHEMA_VERSION, type, sessionId: null, seq: n, time: time.toISOString(), source: 'host', ...fields });
}

function randomId(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

async function acquireLock(path: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath(path), 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number((await readFirstLineText(lockPath(path))) ?? NaN);
    if (Number.isInteger(owner) && owner > 0 && processAlive(owner)) {
      throw new ChainLogError('ELOCKED', `${path}: another writer (pid ${owner}) has this chain open (${basename(lockPath(path))})`);
    }
    await unlink(lockPath(path)).catch(() => undefined);
  }
  throw new ChainLogError('ELOCKED', `${path}: could not take ${basename(lockPath(path))}`);
}

async function readFirstLineText(path: string): Promise<string | undefined> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    return (await handle.readFile('utf8')).split('\n')[0];
  } finally {
    await handle.close();
  }
}

export class ChainLog {
  private handle: FileHandle | undefined;
  private queue: Queued[] = [];
  private lines = new LineBuffer();
  /** Bytes of FILE, counting queued lines. */
  private fileBytes: number;
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  private failure: Error | undefined;
  private closed = false;
  private head: ChainHead;
  /** The head as written to disk (what a checkpoint may sign). */
  private writtenHead: ChainHead;
  private checkpointedNext: number;
  private lastCheckpointAt = Date.now();
  private nextSegment: number;
  /** Set by open() when it repaired a torn line. */
  repaired: Repair | undefined;

  private constructor(
    readonly path: string,
    readonly chainId: string,
    head: ChainHead,
    fileBytes: number,
    nextSegment: number,
    private readonly options: ChainLogOptions,
  ) {
    this.head = head;
    this.writtenHead = head;
    this.checkpointedNext = head.next;
    this.fileBytes = fileBytes;
    this.nextSegment = nextSegment;
  }

  /**
   * Opens (or starts) the chain written to `path`, taking its lock. Continues after the
   * last line of FILE, or of the newest segment when FILE is empty.
   */
  static async open(path: string, options: ChainLogOptions = {}): Promise<ChainLog> {
    await acquireLock(path);
    try {
      return await ChainLog.openLocked(path, options);
    } catch (error) {
      await unlink(lockPath(path)).catch(() => undefined);
      throw error;
    }
  }

  private static async openLocked(path: string, options: ChainLogOptions): Promise<ChainLog> {
    const now = options.now ?? (() => new Date());
    let tail = await readTail(path);
    let repaired: Repair | undefined;
    if (tail.tornBytes.length > 0) {
      if (options.onTorn !== 'repair') {
        throw new ChainLogError('ETORN', `${path}: the last line is torn (${tail.tornBytes.length} bytes without a newline: a write was cut off); run 'airlock audit repair ${path}'`);
      }
      repaired = { file: path, line: await countLines(path, tail.goodLength) + 1, truncatedBytes: tail.tornBytes.length, truncatedHash: blake3Hex(tail.tornBytes) };
      await truncate(path, tail.goodLength);
      tail = await readTail(path);
    }
    if (tail.lastLine !== undefined && tail.head === undefined) {
      throw new ChainLogError('EBROKEN', `${path}: the last line is not a valid chain line; run 'airlock audit verify ${path}'`);
    }
    const segments = await listSegments(path);
    const nextSegment = (segments.at(-1)?.segment ?? 0) + 1;
    let head = tail.head;
    let chainId = chainIdOf(await readFirstLine(path));
    let firstLine: string | undefined;
    if (head === undefined) {
      // FILE is empty: a new chain, or the continuation of the newest segment (a crash
      // between the rename of a rotation and the first line of the new file).
      const previous = segments.at(-1);
      if (previous !== undefined) {
        const previousTail = await readTail(previous.path);
        if (previousTail.head === undefined || previousTail.tornBytes.length > 0) throw new ChainLogError('EBROKEN', `${previous.path}: cannot continue the chain from it: its last line is torn or invalid`);
        head = previousTail.head;
        chainId = chainIdOf(await readFirstLine(previous.path)) ?? randomId();
        firstLine = logEvent('audit.segment_started', { chainId, segment: nextSegment, previousFile: basename(previous.path) }, head.next, now());
      } else {
        head = { next: 0, prev: GENESIS_PREV };
        chainId = randomId();
        firstLine = logEvent('audit.chain_started', { chainId }, 0, now());
      }
    }
    const expect = options.expectHead;
    if (expect !== undefined && (expect.next !== head.next || expect.prev !== head.prev)) {
      throw new ChainLogError('EHEAD', `${path}: the chain's head is line n=${head.next - 1} (${head.prev.slice(0, 12)}…), not the expected n=${expect.next - 1} (${expect.prev.slice(0, 12)}…): the file was changed since it was last written`);
    }
    const log = new ChainLog(path, chainId ?? randomId(), head, tail.goodLength, nextSegment, options);
    log.handle = await open(path, 'a');
    if (firstLine !== undefined) log.appendJson(firstLine);
    if (repaired !== undefined) {
      log.repaired = repaired;
      log.appendJson(logEvent('audit.repaired', { line: repaired.line, truncatedBytes: repaired.truncatedBytes, truncatedHash: repaired.truncatedHash, reason: 'torn last line (a write was cut off)' }, log.head.next, now()));
    }
    await log.flush();
    return log;
  }

  /** Where the chain stands, counting lines not yet written. */
  get currentHead(): ChainHead {
    return { ...this.head };
  }

  /** Bytes appended but not yet written. */
  get backlogBytes(): number {
    let bytes = this.lines.length;
    for (const item of this.queue) if (item instanceof Uint8Array) bytes += item.length;
    return bytes;
  }

  /** Chains `event` (a JSON object) as the next line; it is written shortly after. */
  append(event: object): { n: number; hash: string } {
    return this.appendJson(JSON.stringify(event));
  }

  /** Like append(), with the event already serialized (one JSON object, no newline). */
  appendJson(eventJson: string): { n: number; hash: string } {
    if (this.closed) throw new ChainLogError('ECLOSED', `${this.path}: the log is closed`);
    if (this.failure !== undefined) throw new ChainLogError('EWRITE', `${this.path}: an earlier write failed: ${this.failure.message}`);
    const n = this.head.next;
    const before = this.lines.length;
    const hash = this.lines.append(this.head, eventJson);
    const bytes = this.lines.length - before;
    if (bytes > CHAIN_LINE_MAX_BYTES) {
      this.lines.length = before;
      throw new ChainLogError('ETOOLONG', `an event of ${bytes} bytes is longer than a chain line may be (${CHAIN_LINE_MAX_BYTES} bytes)`);
    }
    this.head = { next: n + 1, prev: hash };
    this.fileBytes += bytes;
    const maxBytes = this.options.maxBytes;
    if (maxBytes !== undefined && this.fileBytes >= maxBytes) this.startSegment();
    this.schedule();
    return { n, hash };
  }

  /** Queues a rotation here: FILE becomes FILE.<k>, and the next line opens a new FILE. */
  private startSegment(): void {
    const segment = this.nextSegment++;
    if (this.lines.length > 0) this.queue.push(this.lines.take());
    this.queue.push({ rotate: segment });
    this.fileBytes = 0;
    const now = this.options.now ?? (() => new Date());
    this.appendJson(logEvent('audit.segment_started', { chainId: this.chainId, segment: segment + 1, previousFile: `${basename(this.path)}.${segment}` }, this.head.next, now()));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Kept referenced: a process that ends with lines pending writes them first (≤ 25 ms).
    setTimeout(() => {
      this.scheduled = false;
      void this.flush().catch(() => undefined);
    }, this.options.flushDelayMs ?? 25);
  }

  /** Writes everything appended so far; resolves when it is on disk (not synced). */
  flush(): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.flushing !== undefined) await this.flushing.catch(() => undefined);
      if (this.lines.length > 0) this.queue.push(this.lines.take());
      if (this.queue.length === 0) return;
      if (this.failure !== undefined) throw this.failure;
      const queue = this.queue;
      const next = this.head;
      this.queue = [];
      try {
        await this.writeQueued(queue);
        this.writtenHead = next;
      } catch (error) {
        this.failure = error instanceof Error ? error : new Error(String(error));
        throw new ChainLogError('EWRITE', `${this.path}: ${this.failure.message}`);
      }
      await this.maybeCheckpoint();
    };
    const flushing = run();
    this.flushing = flushing;
    return flushing;
  }

  private async writeQueued(queue: Queued[]): Promise<void> {
    for (const item of queue) {
      if (item instanceof Uint8Array) await writeAll(this.handle as FileHandle, item);
      else await this.rotateNow(item.rotate);
    }
  }

  private async rotateNow(segment: number): Promise<void> {
    const handle = this.handle as FileHandle;
    await handle.datasync();
    await handle.close();
    await rename(this.path, `${this.path}.${segment}`);
    this.handle = await open(this.path, 'a');
  }

  private async maybeCheckpoint(): Promise<void> {
    if (this.options.signer === undefined) return;
    const lines = this.writtenHead.next - this.checkpointedNext;
    const every = this.options.checkpointEvery ?? 10_000;
    const interval = this.options.checkpointIntervalMs ?? 5_000;
    if (lines >= every || (lines > 0 && Date.now() - this.lastCheckpointAt >= interval)) await this.checkpoint();
  }

  /** Signs the written head now into FILE.checkpoints (after syncing FILE). */
  async checkpoint(): Promise<void> {
    const signer = this.options.signer;
    const head = this.writtenHead;
    if (signer === undefined || head.next === 0 || head.next === this.checkpointedNext) return;
    await (this.handle as FileHandle).datasync();
    const note = signCheckpoint({ chainId: this.chainId, size: head.next, hash: head.prev }, signer);
    const checkpoints = await open(checkpointsPath(this.path), 'a');
    try {
      await checkpoints.write(note);
      await checkpoints.datasync();
    } finally {
      await checkpoints.close();
    }
    this.checkpointedNext = head.next;
    this.lastCheckpointAt = Date.now();
  }

  /** Writes what is queued, signs a last checkpoint, and releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
      await this.checkpoint();
    } finally {
      this.closed = true;
      await this.handle?.close();
      await unlink(lockPath(this.path)).catch(() => undefined);
    }
  }

  /** Bytes written to FILE so far (for tests and rotation checks). */
  async size(): Promise<number> {
    return (await fileSize(this.path)) ?? 0;
  }
}

/** Writes all of `bytes` (a write may take fewer than asked). */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

async function countLines(path: string, length: number): Promise<number> {
  const handle = await open(path, 'r');
  try {
    let lines = 0;
    const buffer = new Uint8Array(1 << 20);
    for (let offset = 0; offset < length; ) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, length - offset), offset);
      if (bytesRead === 0) break;
      for (let i = 0; i < bytesRead; i++) if (buffer[i] === 0x0a) lines++;
      offset += bytesRead;
    }
    return lines;
  } finally {
    await handle.close();
  }
}
