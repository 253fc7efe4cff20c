// The image a fork or restart loads: every kind of inode comes back as it was, file
// contents are views of the page's buffer rather than copies, and a write to one file (or
// after a snapshot) changes nothing else that views the same buffer.

import { describe, expect, it } from 'vitest';
import { serialize, deserialize } from 'node:v8';
import { imageParts, readImageInodes, type ImagePage } from '../protocol/fs-image.js';
import type { InodeRecord } from '../protocol/records.js';
import type { VfsCaller } from './vfs/caller.js';
import { bootFilesystem } from './vfs/boot.js';
import type { DirInode, FileInode } from './vfs/inode.js';
import { ROOT_INO, Vfs } from './vfs/vfs.js';
import { applyRecords, inodeToRecord, loadImagePage } from './kernel-records.js';

const USER: VfsCaller = { pid: 7, umask: 0o022, uid: 1000, gid: 1000 };
const NO_PROCESSES = { pids: () => [7], view: () => undefined, uptimeSeconds: () => 1, memoryBytes: () => 1 << 30 };
const encoder = new TextEncoder();

function boot(): { vfs: Vfs; home: DirInode } {
  const vfs = new Vfs({ fsBytes: 1 << 20, fileCount: 10_000 });
  const { homeIno } = bootFilesystem(vfs, { tools: ['cat'], hostname: 'sandbox', kernelVersion: 'test' }, NO_PROCESSES);
  return { vfs, home: vfs.getOrThrow(homeIno) as DirInode };
}

function read(vfs: Vfs, path: string): string {
  const inode = vfs.resolve(ROOT_INO, path, true, USER);
  if (inode.kind !== 'file') throw new Error(`${path} is not a file`);
  return new TextDecoder().decode(inode.data.subarray(0, inode.size));
}

/** What the host's mirror would hold after a run: every changed inode with its content. */
function records(vfs: Vfs): InodeRecord[] {
  return vfs.takeChanged().flatMap((ino) => {
    const inode = vfs.table.get(ino);
    if (inode === undefined) return [];
    const record = inodeToRecord(inode);
    if (inode.kind === 'file') record.data = inode.data.slice(0, inode.size);
    return [record];
  });
}

/** The image as the worker receives it: each part through structured clone, as a message is. */
function loadImage(vfs: Vfs, records: InodeRecord[], budgetBytes = 1 << 20): ImagePage[] {
  const pages: ImagePage[] = [];
  for (const part of imageParts(records, budgetBytes)) {
    const received = deserialize(serialize(part)) as typeof part;
    if (received.page !== undefined) {
      loadImagePage(vfs, received.page);
      pages.push(received.page);
    } else applyRecords(vfs, received.records, []);
  }
  return pages;
}

function sandboxWithFiles(count: number): Vfs {
  const { vfs, home } = boot();
  vfs.takeChanged();
  const data = vfs.mkdir(home, 'data', USER);
  for (let i = 1; i <= count; i++) vfs.writeAt(vfs.createFile(data, `f${i}`, USER).ino, 0, encoder.encode(`file ${i}\n`));
  vfs.symlink(home, 'link', 'data/f1', USER);
  vfs.writeAt(vfs.createFile(home, 'naïve ✓', USER).ino, 0, encoder.encode('utf-8 name'));
  return vfs;
}

describe('filesystem images', () => {
  it('loads files, directories, symlinks and usage as they were', () => {
    const source = sandboxWithFiles(1000);
    const usage = { ...source.meter.usage };
    const { vfs } = boot();
    loadImage(vfs, records(source));
    expect(read(vfs, '/home/user/data/f1000')).toBe('file 1000\n');
    expect(read(vfs, '/home/user/link')).toBe('file 1\n');
    expect(read(vfs, '/home/user/naïve ✓')).toBe('utf-8 name');
    expect((vfs.resolve(ROOT_INO, '/home/user/data', true, USER) as DirInode).entries.size).toBe(1000);
    expect(vfs.meter.usage).toEqual(usage);
  });

  it('keeps contents as views of the image, and a write changes only its own file', () => {
    const { vfs } = boot();
    const [page] = loadImage(vfs, records(sandboxWithFiles(3)));
    const f1 = vfs.resolve(ROOT_INO, '/home/user/data/f1', true, USER) as FileInode;
    expect(f1.data.buffer).toBe(page?.contents.buffer);
    const snap = vfs.snapshot();
    // In place (no growth), then past the end (a copy), then a neighbour is still intact.
    vfs.writeAt(f1.ino, 0, encoder.encode('FILE'));
    vfs.writeAt(vfs.resolve(ROOT_INO, '/home/user/data/f2', true, USER).ino, 6, encoder.encode(' and more\n'));
    expect(read(vfs, '/home/user/data/f1')).toBe('FILE 1\n');
    expect(read(vfs, '/home/user/data/f2')).toBe('file 2 and more\n');
    expect(read(vfs, '/home/user/data/f3')).toBe('file 3\n');
    vfs.restore(snap);
    expect(read(vfs, '/home/user/data/f1')).toBe('file 1\n');
    expect(read(vfs, '/home/user/data/f2')).toBe('file 2\n');
  });

  it('two kernels loaded from copies of one image never see each other\'s writes', () => {
    const image = records(sandboxWithFiles(10));
    const a = boot().vfs;
    const b = boot().vfs;
    loadImage(a, image);
    loadImage(b, image);
    a.writeAt(a.resolve(ROOT_INO, '/home/user/data/f5', true, USER).ino, 0, encoder.encode('A'));
    a.unlink(a.resolve(ROOT_INO, '/home/user/data', true, USER) as DirInode, 'f6');
    expect(read(b, '/home/user/data/f5')).toBe('file 5\n');
    expect(read(b, '/home/user/data/f6')).toBe('file 6\n');
    expect(read(a, '/home/user/data/f5')).toBe('Aile 5\n');
  });

  it('pages a large image, and sends a file too large for a page as fragments', () => {
    const source = sandboxWithFiles(200);
    const home = source.resolve(ROOT_INO, '/home/user', true, USER) as DirInode;
    const big = new Uint8Array(3000).map((_, i) => i % 251);
    source.writeAt(source.createFile(home, 'big', USER).ino, 0, big);
    const { vfs } = boot();
    const pages = loadImage(vfs, records(source), 1000);
    expect(pages.length).toBeGreaterThan(10);
    expect(read(vfs, '/home/user/data/f200')).toBe('file 200\n');
    const loaded = vfs.resolve(ROOT_INO, '/home/user/big', true, USER) as FileInode;
    expect(Buffer.from(loaded.data.subarray(0, loaded.size)).equals(Buffer.from(big))).toBe(true);
  });

  it('encodes every kind of inode in the page\'s table, and refuses a malformed table', () => {
    const base = { mode: 0o755, uid: 1000, gid: 1000, atimeNs: -5n, mtimeNs: 1n << 62n, ctimeNs: 0n, writable: true };
    const records: InodeRecord[] = [
      { ...base, kind: 'dir', ino: 20, entries: [], parent: 1 },
      { ...base, kind: 'dir', ino: 21, entries: [['naïve ✓', 22], ['a b', 23], ['dev', 24]], parent: 20 },
      { ...base, kind: 'file', ino: 22, size: 2, data: encoder.encode('hi'), writable: false },
      { ...base, kind: 'symlink', ino: 23, target: '../ünï/x' },
      { ...base, kind: 'chardev', ino: 24, device: 'zero' },
    ];
    const [part] = imageParts(records, 1 << 20);
    const page = part?.page as ImagePage;
    const inodes = readImageInodes(page);
    expect(inodes.map((inode) => inode.kind)).toEqual(['dir', 'dir', 'file', 'symlink', 'chardev']);
    expect(inodes[0]).toMatchObject({ ino: 20, entries: new Map(), parent: 1, atimeNs: -5n, mtimeNs: 1n << 62n });
    expect(inodes[1]).toMatchObject({ entries: new Map([['naïve ✓', 22], ['a b', 23], ['dev', 24]]), parent: 20 });
    expect(inodes[2]).toMatchObject({ size: 2, dataStart: 0, writable: false });
    expect(inodes[3]).toMatchObject({ target: '../ünï/x' });
    expect(inodes[4]).toMatchObject({ device: 'zero' });
    expect(() => readImageInodes({ table: page.table.subarray(0, page.table.length - 3), contents: page.contents })).toThrow(RangeError);
    const badKind = page.table.slice();
    badKind[4] = 9;
    expect(() => readImageInodes({ table: badKind, contents: page.contents })).toThrow(/inode kind 9/);
  });
});
