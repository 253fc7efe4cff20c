// The host must not trust what the worker reports: malformed records and usage past the
// limits are refused at commit.

import { describe, expect, it } from 'vitest';
import { LimitError, ProtocolError } from '../protocol/errors.js';
import type { InodeRecord } from '../protocol/records.js';
import { readImageInodes } from '../protocol/fs-image.js';
import { Mirror } from './mirror.js';

const base = { mode: 0o644, uid: 1000, gid: 1000, atimeNs: 0n, mtimeNs: 0n, ctimeNs: 0n, writable: true };
const file = (ino: number, data: Uint8Array, extra: Partial<InodeRecord> = {}): InodeRecord => ({ ...base, ino, kind: 'file', size: data.length, data, dataOffset: 0, ...extra });
const dir = (ino: number, entries: Array<[string, number]>): InodeRecord => ({ ...base, ino, kind: 'dir', mode: 0o755, entries, parent: 1 });

describe('Mirror', () => {
  it('keeps valid records and assembles fragmented files', () => {
    const mirror = new Mirror({ fsBytes: 1000, fileCount: 100 });
    mirror.apply({ records: [dir(10, [['f', 11]]), file(11, new Uint8Array([1, 2]), { size: 4 })], deleted: [], done: false });
    mirror.apply({ records: [file(11, new Uint8Array([3, 4]), { size: 4, dataOffset: 2 })], deleted: [], done: true });
    expect(mirror.get(11)?.data).toEqual(new Uint8Array([1, 2, 3, 4]));
    expect(mirror.contentBytes).toBe(4);
    mirror.apply({ records: [], deleted: [11], done: true });
    expect(mirror.get(11)).toBeUndefined();
    expect(mirror.contentBytes).toBe(0);
  });

  it('refuses names that could escape or confuse a path', () => {
    for (const name of ['..', '.', 'a/b', '', 'nul\0x', 'x'.repeat(256)]) {
      const mirror = new Mirror({ fsBytes: 1000, fileCount: 100 });
      expect(() => mirror.apply({ records: [dir(10, [[name, 11]])], deleted: [], done: true })).toThrow(ProtocolError);
    }
  });

  it('refuses malformed records', () => {
    const bad: unknown[] = [
      { ...base, ino: -1, kind: 'file', size: 0 },
      { ...base, ino: 5, kind: 'socket' },
      { ...base, ino: 5, kind: 'file', mode: 0o177777, size: 0 },
      { ...base, ino: 5, kind: 'file', size: 2, data: new Uint8Array(5) },
      { ...base, ino: 5, kind: 'symlink', target: 'x'.repeat(5000) },
      { ...base, ino: 5, kind: 'file', size: 0, atimeNs: 'yesterday' },
    ];
    for (const record of bad) {
      const mirror = new Mirror({ fsBytes: 1000, fileCount: 100 });
      expect(() => mirror.apply({ records: [record as InodeRecord], deleted: [], done: true })).toThrow(ProtocolError);
    }
  });

  it('enforces fsBytes even when the worker under-reports, and counts mounts as the host\'s', () => {
    const mirror = new Mirror({ fsBytes: 10, fileCount: 100 });
    const lying = { ...file(20, new Uint8Array(8)), writable: false };
    mirror.apply({ records: [lying], deleted: [], done: true });
    expect(() => mirror.apply({ records: [file(21, new Uint8Array(8))], deleted: [], done: true })).toThrow(LimitError);
    const withMount = new Mirror({ fsBytes: 10, fileCount: 100 });
    withMount.addHostContent(100, 1);
    expect(() => withMount.apply({ records: [file(30, new Uint8Array(100)), file(31, new Uint8Array(10))], deleted: [], done: true })).not.toThrow();
  });

  it('refuses a file whose fragments never complete', () => {
    const mirror = new Mirror({ fsBytes: 1000, fileCount: 100 });
    expect(() => mirror.apply({ records: [file(11, new Uint8Array([1]), { size: 3 })], deleted: [], done: true })).toThrow(ProtocolError);
  });

  it('makes image parts once, until the records change; clones share them; large files go as fragments', () => {
    const mirror = new Mirror({ fsBytes: 1 << 20, fileCount: 100 });
    const data = new Uint8Array(5000).map((_, i) => i % 256);
    mirror.apply({ records: [file(11, data), file(12, new Uint8Array([1, 2, 3])), dir(10, [['f', 11], ['g', 12]])], deleted: [], done: true });
    const parts = mirror.imageParts(2000);
    expect(mirror.clone().imageParts(2000)).toBe(parts);
    const fragments = parts.flatMap((p) => p.records ?? []);
    expect(fragments.length).toBeGreaterThan(1);
    const rebuilt = new Uint8Array(5000);
    for (const f of fragments) rebuilt.set(f.data as Uint8Array, f.dataOffset);
    expect(Buffer.from(rebuilt).equals(Buffer.from(data))).toBe(true);
    const pages = parts.flatMap((p) => (p.page === undefined ? [] : [p.page]));
    expect(pages.flatMap((p) => readImageInodes(p).map((inode) => inode.ino))).toEqual([12, 10]);
    expect(pages[0]?.contents).toEqual(new Uint8Array([1, 2, 3]));
    const changed = mirror.clone();
    changed.apply({ records: [], deleted: [11], done: true });
    expect(changed.imageParts(2000)).toHaveLength(1);
    expect(mirror.imageParts(2000)).toBe(parts);
  });

});
