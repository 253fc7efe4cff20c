// The workspace store on fake-indexeddb: incremental saves, atomic replace, migrations, and
// a failed save that leaves the stored workspace as it was.

import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { InodeRecord } from '../../protocol/records.js';
import { DeltaQueue } from './delta-queue.js';
import { WorkspaceSaver } from './saver.js';
import { MIGRATIONS, SCHEMA_VERSION, migrationsBetween } from './schema.js';
import { StoreQuotaError, WorkspaceStore } from './store.js';

let dbCounter = 0;
const freshStore = (): Promise<WorkspaceStore> => WorkspaceStore.open(`test-${++dbCounter}`);

function file(ino: number, text: string): InodeRecord {
  const data = new TextEncoder().encode(text);
  return { ino, kind: 'file', mode: 0o644, uid: 1000, gid: 1000, atimeNs: 1n, mtimeNs: 2n, ctimeNs: 3n, writable: true, size: data.length, data, dataOffset: 0 };
}

describe('schema', () => {
  it('has one migration per version, in order', () => {
    expect(MIGRATIONS.map((m) => m.to)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    expect(migrationsBetween(0, SCHEMA_VERSION).length).toBe(SCHEMA_VERSION);
    expect(migrationsBetween(1, 3).map((m) => m.to)).toEqual([2, 3]);
    expect(migrationsBetween(SCHEMA_VERSION, SCHEMA_VERSION)).toEqual([]);
    expect(() => migrationsBetween(SCHEMA_VERSION + 1, SCHEMA_VERSION)).toThrow(/newer than this playground/);
  });

  it('upgrades a version-1 database in place, keeping its inodes', async () => {
    const name = `test-migrate-${++dbCounter}`;
    const { openDB } = await import('idb');
    const v1 = await openDB(name, 1, { upgrade: (db, oldVersion, newVersion, tx) => MIGRATIONS[0]?.apply(db as never, tx as never) });
    await v1.put('workspaces' as never, { id: 'w', name: 'w', createdMs: 1, updatedMs: 1, format: 1 } as never);
    await v1.put('inodes' as never, { workspace: 'w', ino: 5, record: file(5, 'old') } as never);
    v1.close();
    const store = await WorkspaceStore.open(name);
    const loaded = await store.load('w');
    expect(loaded?.state.records.map((r) => r.ino)).toEqual([5]);
    expect(loaded?.values).toEqual({});
    store.close();
  });
});

describe('DeltaQueue', () => {
  it('merges records by inode and lets deletions cancel pending records', () => {
    const queue = new DeltaQueue();
    queue.addDelta({ records: [file(1, 'a'), file(2, 'b')], deleted: [], shellState: new Uint8Array([1]) });
    queue.addDelta({ records: [file(1, 'a2')], deleted: [2, 3], shellState: new Uint8Array([2]) });
    const batch = queue.take();
    expect(batch.records.map((r) => new TextDecoder().decode(r.data))).toEqual(['a2']);
    expect(batch.deleted.sort()).toEqual([2, 3]);
    expect(batch.values.shellState).toEqual(new Uint8Array([2]));
    expect(queue.empty).toBe(true);
  });

  it('puts a failed batch back under newer changes', () => {
    const queue = new DeltaQueue();
    queue.addDelta({ records: [file(1, 'old'), file(2, 'gone')], deleted: [], shellState: new Uint8Array([1]) });
    const failed = queue.take();
    queue.addDelta({ records: [file(1, 'new')], deleted: [2], shellState: new Uint8Array([2]) });
    queue.putBack(failed);
    const batch = queue.take();
    expect(batch.records.map((r) => new TextDecoder().decode(r.data))).toEqual(['new']);
    expect(batch.deleted).toEqual([2]);
    expect(batch.values.shellState).toEqual(new Uint8Array([2]));
  });
});

describe('WorkspaceStore', () => {
  it('saves incrementally and loads the result', async () => {
    const store = await freshStore();
    await store.save('w', { records: [file(1, 'one'), file(2, 'two')], deleted: [], values: { history: ['ls'] } });
    await store.save('w', { records: [file(2, 'TWO')], deleted: [1], values: { shellState: new Uint8Array([9]) } });
    const loaded = await store.load('w');
    expect(loaded?.state.records.map((r) => [r.ino, new TextDecoder().decode(r.data)])).toEqual([[2, 'TWO']]);
    expect(loaded?.state.shellState).toEqual(new Uint8Array([9]));
    expect(loaded?.values.history).toEqual(['ls']);
    expect(await store.load('other')).toBeUndefined();
    store.close();
  });

  it('replace swaps the whole workspace and keeps other workspaces apart', async () => {
    const store = await freshStore();
    await store.save('a', { records: [file(1, 'a1'), file(2, 'a2')], deleted: [], values: {} });
    await store.save('b', { records: [file(1, 'b1')], deleted: [], values: {} });
    await store.replace('a', { records: [file(7, 'seven')], shellState: new Uint8Array(0) });
    expect((await store.load('a'))?.state.records.map((r) => r.ino)).toEqual([7]);
    expect((await store.load('b'))?.state.records.map((r) => r.ino)).toEqual([1]);
    await store.remove('a');
    expect(await store.load('a')).toBeUndefined();
    expect((await store.list()).map((m) => m.id)).toEqual(['b']);
    store.close();
  });

  it('a save that fails part-way leaves the previous state (one transaction)', async () => {
    const store = await freshStore();
    await store.save('w', { records: [file(1, 'kept')], deleted: [], values: {} });
    // A value that cannot be cloned makes the transaction fail after other writes were queued.
    const broken = { records: [file(1, 'lost'), file(2, 'lost')], deleted: [], values: { tabs: () => undefined } };
    await expect(store.save('w', broken)).rejects.toThrow(/saving workspace w/);
    const loaded = await store.load('w');
    expect(loaded?.state.records.map((r) => new TextDecoder().decode(r.data))).toEqual(['kept']);
    store.close();
  });
});

describe('large files', () => {
  const CHUNK_BYTES = 1024;
  const chunkedStore = (): Promise<WorkspaceStore> => WorkspaceStore.open(`test-${++dbCounter}`, { chunkBytes: CHUNK_BYTES });
  const big = (ino: number, size: number, seed: number): InodeRecord => {
    const data = new Uint8Array(size);
    for (let i = 0; i < size; i += 1) data[i] = (i * 7 + seed) & 0xff;
    return { ino, kind: 'file', mode: 0o644, uid: 1000, gid: 1000, atimeNs: 1n, mtimeNs: 2n, ctimeNs: 3n, writable: true, size, data, dataOffset: 0 };
  };

  it('are stored in chunks and read back whole; a smaller rewrite drops the old chunks', async () => {
    const store = await chunkedStore();
    const first = big(3, CHUNK_BYTES * 2 + 17, 1);
    await store.save('w', { records: [first, file(4, 'small')], deleted: [], values: {} });
    const loaded = await store.load('w');
    expect(loaded?.state.records.find((r) => r.ino === 3)?.data).toEqual(first.data);
    const second = big(3, CHUNK_BYTES + 1, 2);
    await store.save('w', { records: [second], deleted: [], values: {} });
    expect((await store.load('w'))?.state.records.find((r) => r.ino === 3)?.data).toEqual(second.data);
    await store.save('w', { records: [file(3, 'now small')], deleted: [], values: {} });
    expect(new TextDecoder().decode((await store.load('w'))?.state.records.find((r) => r.ino === 3)?.data)).toBe('now small');
    await store.save('w', { records: [second], deleted: [], values: {} });
    await store.save('w', { records: [], deleted: [3], values: {} });
    expect((await store.load('w'))?.state.records.map((r) => r.ino)).toEqual([4]);
    store.close();
  });

  it('in restore points too, removed with their workspace', async () => {
    const store = await chunkedStore();
    const record = big(9, CHUNK_BYTES * 3, 5);
    await store.saveSnapshot({ workspace: 'w', id: 1, createdMs: 1, label: 'big', state: { records: [record], shellState: new Uint8Array([1]) } });
    expect((await store.loadSnapshot('w', 1))?.state.records[0]?.data).toEqual(record.data);
    await store.remove('w');
    expect(await store.loadSnapshot('w', 1)).toBeUndefined();
    store.close();
  });
});

describe('restore points', () => {
  it('are kept per workspace, listed oldest first, and removed with it', async () => {
    const store = await freshStore();
    const state = { records: [file(1, 'snap')], shellState: new Uint8Array([4]) };
    await store.saveSnapshot({ workspace: 'w', id: 20, createdMs: 2, label: 'second', state });
    await store.saveSnapshot({ workspace: 'w', id: 10, createdMs: 1, label: 'first', state });
    await store.saveSnapshot({ workspace: 'other', id: 5, createdMs: 1, label: 'x', state });
    expect((await store.listSnapshots('w')).map((s) => s.label)).toEqual(['first', 'second']);
    expect((await store.loadSnapshot('w', 20))?.state.shellState).toEqual(new Uint8Array([4]));
    await store.removeSnapshot('w', 10);
    expect((await store.listSnapshots('w')).length).toBe(1);
    await store.remove('w');
    expect(await store.listSnapshots('w')).toEqual([]);
    expect((await store.listSnapshots('other')).length).toBe(1);
    store.close();
  });
});

describe('WorkspaceSaver', () => {
  it('debounces, saves in one go, and keeps changes after a quota error', async () => {
    const store = await freshStore();
    const timers: Array<() => void> = [];
    const errors: Error[] = [];
    const saver = new WorkspaceSaver(store, 'w', { setTimer: (cb) => timers.push(cb), clearTimer: () => undefined, onError: (e) => errors.push(e) });
    saver.addDelta({ records: [file(1, 'x')], deleted: [], shellState: new Uint8Array(0) });
    saver.setValue('history', ['echo hi']);
    expect(timers.length).toBe(2);
    const realSave = store.save.bind(store);
    store.save = () => Promise.reject(new StoreQuotaError('quota'));
    await saver.flush();
    expect(errors[0]).toBeInstanceOf(StoreQuotaError);
    expect(await store.load('w')).toBeUndefined();
    store.save = realSave;
    await saver.flush();
    const loaded = await store.load('w');
    expect(loaded?.state.records.length).toBe(1);
    expect(loaded?.values.history).toEqual(['echo hi']);
    store.close();
  });

  it('does not write while disabled (another tab owns the workspace)', async () => {
    const store = await freshStore();
    const saver = new WorkspaceSaver(store, 'w', { setTimer: () => 0, clearTimer: () => undefined });
    saver.setEnabled(false);
    saver.addDelta({ records: [file(1, 'x')], deleted: [], shellState: new Uint8Array(0) });
    await saver.flush();
    expect(await store.load('w')).toBeUndefined();
    saver.setEnabled(true);
    await saver.flush();
    expect((await store.load('w'))?.state.records.length).toBe(1);
    saver.addDelta({ records: [file(2, 'stale')], deleted: [], shellState: new Uint8Array(0) });
    saver.discard();
    await saver.flush();
    expect((await store.load('w'))?.state.records.length).toBe(1);
    store.close();
  });
});
