// A sandbox's filesystem image as the host sends it to a fresh worker (a fork, the restart
// after a hard kill, a saved session): the Mirror's records as pages that each fit in one
// message.
//
// A page is two buffers: the inode table, encoded (writeTable), and the contents of all its
// files one after another; a file names its range of the contents. So a message clones two
// buffers, not a thousand objects: serializing a page of 1,000 inodes as objects cost the
// host ~0.9 ms and a just-started worker ~1.5-2 ms per fork, the table is made once per
// checkpoint (the Mirror keeps its parts) and read in a fraction of that. The worker only
// wraps each file's range in a view: the contents are not copied again. A file too large for
// a page goes as fragments of records, as the changes a run reports do.

import type { InodeRecord } from './records.js';

/** What every kind of inode has, as in its record. */
type ImageInodeCommon = Pick<InodeRecord, 'ino' | 'mode' | 'uid' | 'gid' | 'atimeNs' | 'mtimeNs' | 'ctimeNs' | 'writable'>;

export type ImageInode =
  | (ImageInodeCommon & { kind: 'file'; size: number; /** Where its content starts in the page's buffer. */ dataStart: number })
  | (ImageInodeCommon & { kind: 'dir'; entries: Map<string, number>; parent: number })
  | (ImageInodeCommon & { kind: 'symlink'; target: string })
  | (ImageInodeCommon & { kind: 'chardev'; device: string });

export interface ImagePage {
  /** The page's inodes, encoded (readImageInodes). */
  table: Uint8Array;
  /** The contents of the page's files, one after another. */
  contents: Uint8Array;
}

/** One loadImage message's worth: a page of inodes, or a fragment of a large file. */
export type ImagePart = { page: ImagePage; records?: undefined } | { page?: undefined; records: InodeRecord[] };

/** What a record costs in a page besides its content (numbers, names), for paging. */
const RECORD_OVERHEAD = 128;

function imageInode(record: InodeRecord, dataStart: number): ImageInode {
  const common: ImageInodeCommon = {
    ino: record.ino, mode: record.mode, uid: record.uid, gid: record.gid,
    atimeNs: record.atimeNs, mtimeNs: record.mtimeNs, ctimeNs: record.ctimeNs, writable: record.writable,
  };
  switch (record.kind) {
    case 'file':
      return { ...common, kind: 'file', size: record.size ?? 0, dataStart };
    case 'dir':
      return { ...common, kind: 'dir', entries: new Map(record.entries ?? []), parent: record.parent ?? record.ino };
    case 'symlink':
      return { ...common, kind: 'symlink', target: record.target ?? '' };
    case 'chardev':
      return { ...common, kind: 'chardev', device: record.device ?? 'null' };
  }
}

/**
 * The records (whole, as a Mirror keeps them: a file's `data` holds all of its `size` bytes)
 * as parts of about `budgetBytes` each.
 */
export function imageParts(records: Iterable<InodeRecord>, budgetBytes: number): ImagePart[] {
  const fragment = Math.max(1, Math.floor(budgetBytes / 2));
  const parts: ImagePart[] = [];
  let pending: InodeRecord[] = [];
  let used = 0;
  const closePage = (): void => {
    let bytes = 0;
    for (const record of pending) if (record.kind === 'file') bytes += record.size ?? 0;
    const contents = new Uint8Array(bytes);
    let at = 0;
    const inodes = pending.map((record) => {
      const inode = imageInode(record, at);
      if (record.kind === 'file' && record.data !== undefined) {
        contents.set(record.data.subarray(0, record.size ?? 0), at);
        at += record.size ?? 0;
      }
      return inode;
    });
    parts.push({ page: { table: writeTable(inodes), contents } });
    pending = [];
    used = 0;
  };
  for (const record of records) {
    const data = record.kind === 'file' ? record.data ?? new Uint8Array(0) : undefined;
    if (data !== undefined && data.length > fragment) {
      for (let offset = 0; offset < data.length; offset += fragment) {
        // A copy, not a view: a browser's postMessage of a view clones its whole buffer.
        parts.push({ records: [{ ...record, data: data.slice(offset, offset + fragment), dataOffset: offset }] });
      }
      continue;
    }
    const cost = RECORD_OVERHEAD + (data?.length ?? 0) + (record.entries?.length ?? 0) * 32;
    if (used + cost > budgetBytes && pending.length > 0) closePage();
    pending.push(record);
    used += cost;
  }
  if (pending.length > 0 || parts.length === 0) closePage();
  return parts;
}

// ---- the inode table ------------------------------------------------------------------------
// Each inode: kind (u8), writable (u8), ino, mode, uid, gid (u32), atime, mtime, ctime (i64
// ns), then a file's size and start in the contents (f64), a directory's parent and entry
// count (u32), each entry's ino (u32) and its names (joinNames), a symlink's target or a
// device's name. A string is its UTF-8 length (u32) and bytes. Little-endian; the table
// starts with the count.

const KIND_CODES = { file: 0, dir: 1, symlink: 2, chardev: 3 } as const;
const tableEncoder = new TextEncoder();
const tableDecoder = new TextDecoder('utf-8', { fatal: true });

class TableWriter {
  private bytes = new Uint8Array(4096);
  private view = new DataView(this.bytes.buffer);
  at = 0;

  private room(size: number): void {
    if (this.at + size <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.at + size));
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  private put(size: number, write: (view: DataView, at: number) => void): void {
    this.room(size);
    write(this.view, this.at);
    this.at += size;
  }

  u8(value: number): void {
    this.put(1, (view, at) => view.setUint8(at, value));
  }

  u32(value: number): void {
    this.put(4, (view, at) => view.setUint32(at, value, true));
  }

  f64(value: number): void {
    this.put(8, (view, at) => view.setFloat64(at, value, true));
  }

  i64(value: bigint): void {
    this.put(8, (view, at) => view.setBigInt64(at, value, true));
  }

  string(value: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.room(4 + value.length * 3);
    const { written } = tableEncoder.encodeInto(value, this.bytes.subarray(this.at + 4));
    this.u32(written);
    this.at += written;
  }

  done(): Uint8Array {
    return this.bytes.slice(0, this.at);
  }
}

/**
 * A directory's names as one string, `/` between them (a name never has one: Mirror checks),
 * so the worker decodes one string per directory instead of one per entry.
 */
function joinNames(dir: ImageInode & { kind: 'dir' }): string {
  const names = [...dir.entries.keys()];
  for (const name of names) if (name.includes('/')) throw new RangeError(`directory ${dir.ino} has an entry named ${JSON.stringify(name)}: a name has no '/'`);
  return names.join('/');
}

function writeTable(inodes: ImageInode[]): Uint8Array {
  const out = new TableWriter();
  out.u32(inodes.length);
  for (const inode of inodes) {
    out.u8(KIND_CODES[inode.kind]);
    out.u8(inode.writable ? 1 : 0);
    out.u32(inode.ino);
    out.u32(inode.mode);
    out.u32(inode.uid);
    out.u32(inode.gid);
    out.i64(inode.atimeNs);
    out.i64(inode.mtimeNs);
    out.i64(inode.ctimeNs);
    switch (inode.kind) {
      case 'file':
        out.f64(inode.size);
        out.f64(inode.dataStart);
        break;
      case 'dir':
        out.u32(inode.parent);
        out.u32(inode.entries.size);
        for (const ino of inode.entries.values()) out.u32(ino);
        out.string(joinNames(inode));
        break;
      case 'symlink':
        out.string(inode.target);
        break;
      case 'chardev':
        out.string(inode.device);
        break;
    }
  }
  return out.done();
}

/** The inodes of `page`'s table, in order (throws on a malformed table). */
export function readImageInodes(page: ImagePage): ImageInode[] {
  const { table } = page;
  const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  let at = 0;
  const u32 = (): number => {
    const value = view.getUint32(at, true);
    at += 4;
    return value;
  };
  const i64 = (): bigint => {
    const value = view.getBigInt64(at, true);
    at += 8;
    return value;
  };
  const f64 = (): number => {
    const value = view.getFloat64(at, true);
    at += 8;
    return value;
  };
  const string = (): string => {
    const length = u32();
    if (at + length > table.length) throw new RangeError(`an image table's string runs past its end (${at + length} > ${table.length} bytes)`);
    const value = tableDecoder.decode(table.subarray(at, at + length));
    at += length;
    return value;
  };
  const count = u32();
  const inodes: ImageInode[] = [];
  for (let i = 0; i < count; i++) {
    const kind = view.getUint8(at);
    const writable = view.getUint8(at + 1) === 1;
    at += 2;
    const ino = u32(), mode = u32(), uid = u32(), gid = u32(), atimeNs = i64(), mtimeNs = i64(), ctimeNs = i64();
    // Literals, not spreads of the common fields: a spare's just-started V8 runs this cold.
    if (kind === KIND_CODES.file) {
      inodes.push({ kind: 'file', ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, writable, size: f64(), dataStart: f64() });
    } else if (kind === KIND_CODES.dir) {
      const parent = u32();
      const count = u32();
      const inos: number[] = [];
      for (let n = 0; n < count; n++) inos.push(u32());
      const joined = string();
      const names = count === 0 ? [] : joined.split('/');
      if (names.length !== count) throw new RangeError(`an image table's directory ${ino} has ${count} entries but ${names.length} names`);
      const entries = new Map<string, number>();
      for (let n = 0; n < count; n++) entries.set(names[n] as string, inos[n] as number);
      inodes.push({ kind: 'dir', ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, writable, entries, parent });
    } else if (kind === KIND_CODES.symlink) {
      inodes.push({ kind: 'symlink', ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, writable, target: string() });
    } else if (kind === KIND_CODES.chardev) {
      inodes.push({ kind: 'chardev', ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, writable, device: string() });
    } else {
      throw new RangeError(`an image table names inode kind ${kind}, which is none of file, dir, symlink, chardev`);
    }
  }
  return inodes;
}
