// Inodes as records for the host, and back. After each run the host takes the changed
// inodes page by page (a page stays under the message limit; a large file is split into
// fragments), validates them and keeps them. After a hard kill, or to fork a session, a
// fresh kernel boots and replays the host's records on top of the boot tree.

import type { ChangeBatch, InodeRecord } from '../protocol/records.js';
import { imageParts, readImageInodes, type ImagePage } from '../protocol/fs-image.js';
import type { DeviceName, Inode } from './vfs/inode.js';
import { Vfs } from './vfs/vfs.js';

/** Bytes a record costs besides file content (names, numbers), for paging. */
const RECORD_OVERHEAD = 128;

export function inodeToRecord(inode: Inode): InodeRecord {
  const base = {
    ino: inode.ino, kind: inode.kind, mode: inode.mode, uid: inode.uid, gid: inode.gid,
    atimeNs: inode.atimeNs, mtimeNs: inode.mtimeNs, ctimeNs: inode.ctimeNs, writable: inode.writable,
  };
  switch (inode.kind) {
    case 'file':
      return { ...base, size: inode.size };
    case 'dir':
      return { ...base, entries: [...inode.entries], parent: inode.parent };
    case 'symlink':
      return { ...base, target: inode.target };
    case 'chardev':
      return { ...base, device: inode.device };
  }
}

function recordCost(record: InodeRecord): number {
  let cost = RECORD_OVERHEAD + (record.target?.length ?? 0) + (record.data?.length ?? 0);
  for (const [name] of record.entries ?? []) cost += name.length + 16;
  return cost;
}

/** Pages through the changed inodes; the set is captured at the first page. */
export class ChangeFeed {
  private pending: { inos: number[]; index: number; fileOffset: number } | undefined;

  constructor(private readonly vfs: Vfs) {}

  take(budgetBytes: number): ChangeBatch {
    this.pending ??= { inos: this.vfs.takeChanged(), index: 0, fileOffset: 0 };
    const pending = this.pending;
    const records: InodeRecord[] = [];
    const deleted: number[] = [];
    let used = 0;
    while (pending.index < pending.inos.length && used < budgetBytes) {
      const ino = pending.inos[pending.index] as number;
      const inode = this.vfs.table.get(ino);
      if (inode === undefined) {
        deleted.push(ino);
        used += 16;
        pending.index += 1;
        continue;
      }
      const record = inodeToRecord(inode);
      if (inode.kind === 'file') {
        const room = Math.max(0, budgetBytes - used - RECORD_OVERHEAD);
        const remaining = inode.size - pending.fileOffset;
        if (remaining > 0 && room === 0 && records.length > 0) break;
        const take = Math.min(remaining, Math.max(room, 1));
        record.data = inode.data.slice(pending.fileOffset, pending.fileOffset + take);
        record.dataOffset = pending.fileOffset;
        pending.fileOffset += take;
        if (pending.fileOffset < inode.size) {
          records.push(record);
          used += recordCost(record);
          break;
        }
        pending.fileOffset = 0;
      }
      records.push(record);
      used += recordCost(record);
      pending.index += 1;
    }
    const done = pending.index >= pending.inos.length;
    if (done) this.pending = undefined;
    return { records, deleted, done };
  }
}

/**
 * Replays records into `vfs` (boot first). A file's content may come in fragments with
 * increasing `dataOffset`; the first fragment creates the inode with room for `size`.
 */
export function applyRecords(vfs: Vfs, records: InodeRecord[], deleted: number[]): void {
  for (const ino of deleted) vfs.unloadInode(ino);
  for (const record of records) {
    if (record.kind === 'file' && (record.dataOffset ?? 0) > 0) {
      const existing = vfs.table.get(record.ino);
      if (existing === undefined || existing.kind !== 'file') continue;
      const data = record.data ?? new Uint8Array(0);
      existing.data.set(data.subarray(0, Math.max(0, existing.data.length - (record.dataOffset ?? 0))), record.dataOffset);
      continue;
    }
    vfs.loadInode(recordToInode(record));
  }
}

export function recordToInode(record: InodeRecord): Inode {
  const base = {
    ino: record.ino, mode: record.mode, uid: record.uid, gid: record.gid,
    atimeNs: record.atimeNs, mtimeNs: record.mtimeNs, ctimeNs: record.ctimeNs, gen: 0, writable: record.writable,
  };
  switch (record.kind) {
    case 'file': {
      const size = record.size ?? record.data?.length ?? 0;
      const data = new Uint8Array(size);
      if (record.data !== undefined) data.set(record.data.subarray(0, size));
      return { ...base, kind: 'file', data, size };
    }
    case 'dir':
      return { ...base, kind: 'dir', entries: new Map(record.entries ?? []), parent: record.parent ?? record.ino };
    case 'symlink':
      return { ...base, kind: 'symlink', target: record.target ?? '' };
    case 'chardev':
      return { ...base, kind: 'chardev', device: (record.device ?? 'null') as DeviceName };
  }
}

/**
 * Loads a page of an image (protocol/fs-image.ts) into `vfs` (boot first). File contents
 * stay views of the page's buffer, which is this worker's own (a message it received) and
 * is never written as a whole: each file owns its range, a write past a file's end moves
 * it to a buffer of its own (Vfs.writeAt), and a snapshot copies an inode before it
 * changes (InodeTable.mutable), so the sharing is invisible to the sandbox. The buffer
 * lives as long as any of its files still views it.
 */
export function loadImagePage(vfs: Vfs, page: ImagePage): void {
  const { contents } = page;
  const gen = vfs.table.gen;
  for (const record of readImageInodes(page)) {
    const { ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, writable } = record;
    const meta = { ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, gen, writable };
    switch (record.kind) {
      case 'file':
        vfs.loadInode({ kind: 'file', ...meta, data: contents.subarray(record.dataStart, record.dataStart + record.size), size: record.size });
        break;
      case 'dir':
        vfs.loadInode({ kind: 'dir', ...meta, entries: record.entries, parent: record.parent });
        break;
      case 'symlink':
        vfs.loadInode({ kind: 'symlink', ...meta, target: record.target });
        break;
      case 'chardev':
        vfs.loadInode({ kind: 'chardev', ...meta, device: record.device as DeviceName });
        break;
    }
  }
}

/**
 * Loads a made-up image of `files` files into a throwaway Vfs, a few times: a ready spare
 * (src/host/node/spare-child.ts) runs this while it waits, so that V8 has compiled the
 * image's reading and loading before a fork's image arrives. Nothing of it is kept. 10,000
 * inodes in all, enough for V8's optimizing tier: measured as a ready spare loads a fork's
 * 1,000-file image after it (fresh processes, ten alternating runs at load 13-15), the load
 * took 0.73 ms p50 after this against 3.3 ms after 200 files four times.
 */
export function warmImageLoading(files = 500, rounds = 20): void {
  const common = { mode: 0o644, uid: 1000, gid: 1000, atimeNs: 0n, mtimeNs: 0n, ctimeNs: 0n, writable: true };
  const data = new Uint8Array(1);
  const records: InodeRecord[] = [{ ...common, kind: 'dir', ino: 2, parent: 1, entries: Array.from({ length: files }, (_, i): [string, number] => [`f${i}`, 3 + i]) }];
  for (let i = 0; i < files; i++) records.push({ ...common, kind: 'file', ino: 3 + i, size: 1, data });
  for (const part of imageParts(records, 1 << 20)) {
    for (let round = 0; round < rounds; round++) if (part.page !== undefined) loadImagePage(new Vfs({ fsBytes: 1 << 20, fileCount: files * 2 }), part.page);
  }
}
