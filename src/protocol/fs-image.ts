// A sandbox's filesystem image as the host sends it to a fresh worker (a fork, the restart
// after a hard kill, a saved session): the Mirror's records as pages that each fit in one
// message.
//
// A page is inodes shaped as the kernel keeps them (a directory's entries already a Map)
// and one buffer with the contents of all its files; a file names its range of that buffer.
// So structured clone, native code on both sides, does nearly all the work, and the worker
// only wraps each file's range in a view: the contents are not copied again, and not one
// typed array per file is cloned (Node clones each typed array in JavaScript, which in a
// just-started worker costs more than the rest of a fork together). A file too large for a
// page goes as fragments of records, as the changes a run reports do.

import type { InodeRecord } from './records.js';

/** What every kind of inode has, as in its record. */
type ImageInodeCommon = Pick<InodeRecord, 'ino' | 'mode' | 'uid' | 'gid' | 'atimeNs' | 'mtimeNs' | 'ctimeNs' | 'writable'>;

export type ImageInode =
  | (ImageInodeCommon & { kind: 'file'; size: number; /** Where its content starts in the page's buffer. */ dataStart: number })
  | (ImageInodeCommon & { kind: 'dir'; entries: Map<string, number>; parent: number })
  | (ImageInodeCommon & { kind: 'symlink'; target: string })
  | (ImageInodeCommon & { kind: 'chardev'; device: string });

export interface ImagePage {
  inodes: ImageInode[];
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
    parts.push({ page: { inodes, contents } });
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
