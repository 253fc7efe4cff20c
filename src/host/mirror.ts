// The host's copy of the sandbox filesystem: every inode changed since boot, as records.
// The worker is untrusted, so records are validated here before they are kept (shapes,
// names, sizes) and the limits are checked again: a worker that lies about its usage is
// caught at commit. The mirror is what the host replays into a fresh worker after a hard
// kill, what fork() copies, and what persistence stores.

import { LimitError, ProtocolError } from '../protocol/errors.js';
import type { ChangeBatch, InodeRecord } from '../protocol/records.js';
import { imageParts, type ImagePart } from '../protocol/fs-image.js';

const KINDS = new Set(['file', 'dir', 'symlink', 'chardev']);
const NAME_MAX_BYTES = 255;
const MAX_INO = 0x3fffffff;
const encoder = new TextEncoder();

export interface MirrorLimits {
  fsBytes: number;
  fileCount: number;
}

export class Mirror {
  private records = new Map<number, InodeRecord>();
  /** Whether `records` is shared with a clone: copied before this mirror changes it. */
  private shared = false;
  /** Content bytes of all file records, and how many records: checked against limits. */
  private bytes = 0;
  /** Bytes and records the host itself put in through mount(): not the sandbox's usage. */
  private hostBytes = 0;
  private hostRecords = 0;
  /** A file whose fragments are still arriving in the current commit. */
  private partial: { record: InodeRecord; data: Uint8Array; received: number } | undefined;
  /** The records as image parts (imageParts()), until they change; clones share them. */
  private image: { budgetBytes: number; parts: ImagePart[] } | undefined;

  constructor(private readonly limits: MirrorLimits) {}

  get size(): number {
    return this.records.size;
  }

  get contentBytes(): number {
    return this.bytes;
  }

  /** Counts a mount's content as the host's own, so it does not use up fsBytes. */
  addHostContent(bytes: number, records: number): void {
    this.hostBytes += bytes;
    this.hostRecords += records;
  }

  /** A mirror holding `records` (a saved session), validated like a commit. */
  static fromRecords(limits: MirrorLimits, records: InodeRecord[]): Mirror {
    const mirror = new Mirror(limits);
    const plain = records.map((r) => ({ ...r, dataOffset: 0, size: r.kind === 'file' ? r.data?.length ?? r.size ?? 0 : r.size }));
    mirror.apply({ records: plain, deleted: [], done: true });
    return mirror;
  }

  /**
   * Applies one page of changes from the worker. Throws ProtocolError for a malformed
   * record and LimitError when the limits would be exceeded; the mirror is then unchanged
   * by that page's invalid part and the caller must not trust the worker any more.
   */
  apply(batch: ChangeBatch): void {
    if (!Array.isArray(batch.records) || !Array.isArray(batch.deleted)) throw new ProtocolError('malformed change batch');
    for (const ino of batch.deleted) {
      checkIno(ino);
      this.remove(ino);
    }
    for (const record of batch.records) {
      validateRecord(record, this.limits.fsBytes + this.hostBytes);
      if (record.kind === 'file' && (record.dataOffset ?? 0) > 0) this.continueFile(record);
      else if (record.kind === 'file' && (record.data?.length ?? 0) < (record.size ?? 0)) this.startFile(record);
      else this.put(record);
    }
    if (batch.done && this.partial !== undefined) throw new ProtocolError(`file inode ${this.partial.record.ino} ended before all its content arrived`);
    this.checkLimits();
  }

  private startFile(record: InodeRecord): void {
    const size = record.size ?? 0;
    const data = new Uint8Array(size);
    const first = record.data ?? new Uint8Array(0);
    data.set(first.subarray(0, size));
    this.partial = { record, data, received: first.length };
  }

  private continueFile(record: InodeRecord): void {
    const partial = this.partial;
    if (partial === undefined || partial.record.ino !== record.ino || record.dataOffset !== partial.received) {
      throw new ProtocolError(`unexpected fragment of file inode ${record.ino}`);
    }
    const piece = record.data ?? new Uint8Array(0);
    if (partial.received + piece.length > partial.data.length) throw new ProtocolError(`file inode ${record.ino} has more content than its size`);
    partial.data.set(piece, partial.received);
    partial.received += piece.length;
    if (partial.received === partial.data.length) {
      this.partial = undefined;
      this.put({ ...partial.record, data: partial.data, dataOffset: 0 });
    }
  }

  /** The records, this mirror's own to change. */
  private own(): Map<number, InodeRecord> {
    if (this.shared) {
      this.records = new Map(this.records);
      this.shared = false;
    }
    return this.records;
  }

  private put(record: InodeRecord): void {
    this.remove(record.ino);
    this.image = undefined;
    const stored: InodeRecord = record.kind === 'file' ? { ...record, data: record.data ?? new Uint8Array(0), dataOffset: 0 } : record;
    this.own().set(record.ino, stored);
    if (record.kind === 'file') this.bytes += stored.size ?? 0;
  }

  private remove(ino: number): void {
    const previous = this.records.get(ino);
    if (previous === undefined) return;
    this.image = undefined;
    this.own().delete(ino);
    if (previous.kind === 'file') this.bytes -= previous.size ?? 0;
  }

  private checkLimits(): void {
    if (this.bytes > this.limits.fsBytes + this.hostBytes) throw new LimitError('fsBytes', this.limits.fsBytes);
    if (this.records.size > this.limits.fileCount + this.hostRecords + BOOT_ALLOWANCE) throw new LimitError('fileCount', this.limits.fileCount);
  }

  /**
   * A copy sharing the (immutable) records: a snapshot of the host's state. The map of them
   * is shared too until either side changes (a fork's or snapshot's copy usually never
   * does), so a clone costs nothing per record.
   */
  clone(): Mirror {
    const copy = new Mirror(this.limits);
    this.shared = true;
    copy.shared = true;
    copy.records = this.records;
    copy.bytes = this.bytes;
    copy.hostBytes = this.hostBytes;
    copy.hostRecords = this.hostRecords;
    copy.image = this.image;
    return copy;
  }

  /**
   * The records as image parts of about `budgetBytes` (protocol/fs-image.ts): what a fork
   * or a restart loads into the new worker. Kept until the records change, so forking the
   * same state again builds nothing; the records are immutable, so they never go stale.
   */
  imageParts(budgetBytes: number): ImagePart[] {
    if (this.image?.budgetBytes !== budgetBytes) this.image = { budgetBytes, parts: imageParts(this.records.values(), budgetBytes) };
    return this.image.parts;
  }

  all(): IterableIterator<InodeRecord> {
    return this.records.values();
  }

  get(ino: number): InodeRecord | undefined {
    return this.records.get(ino);
  }
}

/** Boot-created inodes may appear in the mirror when they change (e.g. /tmp's directory). */
const BOOT_ALLOWANCE = 4096;

function checkIno(ino: unknown): void {
  if (typeof ino !== 'number' || !Number.isInteger(ino) || ino < 1 || ino > MAX_INO) throw new ProtocolError(`invalid inode number ${String(ino)}`);
}

function validateRecord(record: InodeRecord, maxFileBytes: number): void {
  if (typeof record !== 'object' || record === null) throw new ProtocolError('record is not an object');
  checkIno(record.ino);
  if (!KINDS.has(record.kind)) throw new ProtocolError(`inode ${record.ino}: invalid kind`);
  if (!Number.isInteger(record.mode) || record.mode < 0 || record.mode > 0o7777) throw new ProtocolError(`inode ${record.ino}: invalid mode`);
  for (const time of [record.atimeNs, record.mtimeNs, record.ctimeNs]) {
    if (typeof time !== 'bigint') throw new ProtocolError(`inode ${record.ino}: invalid time`);
  }
  if (record.kind === 'file') {
    const size = record.size ?? -1;
    if (!Number.isInteger(size) || size < 0) throw new ProtocolError(`inode ${record.ino}: invalid size`);
    if (size > maxFileBytes) throw new LimitError('fsBytes', maxFileBytes);
    if (record.data !== undefined && !(record.data instanceof Uint8Array)) throw new ProtocolError(`inode ${record.ino}: invalid content`);
    const offset = record.dataOffset ?? 0;
    if (!Number.isInteger(offset) || offset < 0 || offset + (record.data?.length ?? 0) > size) throw new ProtocolError(`inode ${record.ino}: content outside the file`);
  }
  if (record.kind === 'dir') {
    if (!Array.isArray(record.entries)) throw new ProtocolError(`inode ${record.ino}: directory without entries`);
    for (const entry of record.entries) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string') throw new ProtocolError(`inode ${record.ino}: invalid entry`);
      const [name, child] = entry;
      if (name.length === 0 || name === '.' || name === '..' || name.includes('/') || name.includes('\0') || encoder.encode(name).length > NAME_MAX_BYTES) {
        throw new ProtocolError(`inode ${record.ino}: invalid name ${JSON.stringify(name)}`);
      }
      checkIno(child);
    }
    checkIno(record.parent);
  }
  if (record.kind === 'symlink' && (typeof record.target !== 'string' || encoder.encode(record.target).length > 4096)) {
    throw new ProtocolError(`inode ${record.ino}: invalid symlink target`);
  }
}
