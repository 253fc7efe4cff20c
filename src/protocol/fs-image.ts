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

/** Bytes every inode's entry starts with: kind, writable, ino, mode, uid, gid, three times. */
const ENTRY_HEAD = 2 + 4 * 4 + 3 * 8;

/**
 * Walks `page`'s table entry by entry, reading only the numbers a filesystem's usage needs,
 * and calls `visit` with each: the inode's number, where its entry starts (decode it with
 * ImageReader.inodeAt), whether it is writable and a file's size (0 for other kinds; positional,
 * so no object is made per entry). A fork's worker loads its
 * image so: an inode is decoded when the sandbox first touches it, not all at once. Throws
 * RangeError on a table that runs past its end or names an unknown kind.
 */
export function scanImageTable(page: ImagePage, visit: (ino: number, at: number, writable: boolean, size: number) => void): void {
  const { table } = page;
  const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  const need = (at: number, bytes: number): void => {
    if (at + bytes > table.length) throw new RangeError(`an image table runs past its end (${at + bytes} > ${table.length} bytes)`);
  };
  need(0, 4);
  const count = view.getUint32(0, true);
  let at = 4;
  for (let i = 0; i < count; i++) {
    need(at, ENTRY_HEAD);
    const kind = view.getUint8(at);
    let size = 0;
    let next = at + ENTRY_HEAD;
    if (kind === KIND_CODES.file) {
      need(next, 16);
      size = view.getFloat64(next, true);
      next += 16;
    } else if (kind === KIND_CODES.dir) {
      need(next, 8);
      next += 8 + 4 * view.getUint32(next + 4, true);
      need(next, 4);
      next += 4 + view.getUint32(next, true);
    } else if (kind === KIND_CODES.symlink || kind === KIND_CODES.chardev) {
      need(next, 4);
      next += 4 + view.getUint32(next, true);
    } else {
      throw new RangeError(`an image table names inode kind ${kind}, which is none of file, dir, symlink, chardev`);
    }
    need(next, 0);
    visit(view.getUint32(at + 2, true), at, view.getUint8(at + 1) === 1, size);
    at = next;
  }
}

/**
 * Decodes single entries of one page's table (an `at` scanImageTable gave). Fixed offsets
 * and one DataView per page: a fork's worker decodes each inode on its first use, cold.
 */
export class ImageReader {
  private readonly view: DataView;

  constructor(readonly page: ImagePage) {
    const { table } = page;
    this.view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  }

  private string(at: number): string {
    const length = this.view.getUint32(at, true);
    const { table } = this.page;
    if (at + 4 + length > table.length) throw new RangeError(`an image table's string runs past its end (${at + 4 + length} > ${table.length} bytes)`);
    return tableDecoder.decode(table.subarray(at + 4, at + 4 + length));
  }

  inodeAt(at: number): ImageInode {
    const view = this.view;
    const kind = view.getUint8(at);
    const writable = view.getUint8(at + 1) === 1;
    const ino = view.getUint32(at + 2, true), mode = view.getUint32(at + 6, true), uid = view.getUint32(at + 10, true), gid = view.getUint32(at + 14, true);
    const atimeNs = view.getBigInt64(at + 18, true), mtimeNs = view.getBigInt64(at + 26, true), ctimeNs = view.getBigInt64(at + 34, true);
    const body = at + ENTRY_HEAD;
    // Literals, not spreads of the common fields: a spare's just-started V8 runs this cold.
    if (kind === KIND_CODES.file) return { kind: 'file', ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, writable, size: view.getFloat64(body, true), dataStart: view.getFloat64(body + 8, true) };
    if (kind === KIND_CODES.dir) {
      const parent = view.getUint32(body, true);
      const count = view.getUint32(body + 4, true);
      const names = count === 0 ? [] : this.string(body + 8 + 4 * count).split('/');
      if (names.length !== count) throw new RangeError(`an image table's directory ${ino} has ${count} entries but ${names.length} names`);
      const entries = new Map<string, number>();
      for (let n = 0; n < count; n++) entries.set(names[n] as string, view.getUint32(body + 8 + 4 * n, true));
      return { kind: 'dir', ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, writable, entries, parent };
    }
    if (kind === KIND_CODES.symlink) return { kind: 'symlink', ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, writable, target: this.string(body) };
    if (kind === KIND_CODES.chardev) return { kind: 'chardev', ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, writable, device: this.string(body) };
    throw new RangeError(`an image table names inode kind ${kind}, which is none of file, dir, symlink, chardev`);
  }
}

/** The inodes of `page`'s table, in order (throws on a malformed table). */
export function readImageInodes(page: ImagePage): ImageInode[] {
  const reader = new ImageReader(page);
  const inodes: ImageInode[] = [];
  scanImageTable(page, (_ino, at) => inodes.push(reader.inodeAt(at)));
  return inodes;
}
