// The playground's workspace store on IndexedDB (through `idb`). Each save is exactly one
// readwrite transaction over `workspaces`, `inodes`, `chunks` and `values`: IndexedDB
// commits it whole or not at all, so a quota error, a crash or a closed tab leaves the
// previous complete workspace. Large files are written in chunks (schema.ts), so any file
// within the disk limit can be stored. Quota errors surface as StoreQuotaError for the
// page to show.

import { openDB, type IDBPDatabase } from 'idb';
import type { SessionState } from '../types.js';
import type { PendingBatch } from './delta-queue.js';
import type { IDBPTransaction, StoreNames } from 'idb';
import type { InodeRecord } from '../../protocol/records.js';
import { CHUNK_BYTES, DB_NAME, ROW_FORMAT, SCHEMA_VERSION, migrationsBetween, snapshotKey, type InodeRow, type PlaygroundSchema, type ValueKey, type SnapshotRow, type ValueRow, type WorkspaceMeta } from './schema.js';

type FilesTransaction = IDBPTransaction<PlaygroundSchema, Array<StoreNames<PlaygroundSchema>>, 'readwrite'>;
type ReadTransaction = IDBPTransaction<PlaygroundSchema, Array<StoreNames<PlaygroundSchema>>, 'readonly' | 'readwrite'>;

/** Every chunk of one inode of one workspace. */
function chunkRange(workspace: string, ino: number): IDBKeyRange {
  return IDBKeyRange.bound([workspace, ino, 0], [workspace, ino, Infinity]);
}

/**
 * Queues the writes that store `record` (replacing any earlier content of its inode): inline
 * when small, else a data-less record plus chunks. Each chunk is its own copy: cloning a view
 * into a larger buffer would store the whole buffer.
 */
function putRecord(tx: FilesTransaction, workspace: string, record: InodeRecord, writes: Array<Promise<unknown>>, chunkBytes: number): void {
  const chunks = tx.objectStore('chunks');
  writes.push(chunks.delete(chunkRange(workspace, record.ino)));
  const data = record.kind === 'file' ? record.data : undefined;
  if (data === undefined || data.length <= chunkBytes) {
    writes.push(tx.objectStore('inodes').put({ workspace, ino: record.ino, record }));
    return;
  }
  const count = Math.ceil(data.length / chunkBytes);
  const { data: _content, ...bare } = record;
  writes.push(tx.objectStore('inodes').put({ workspace, ino: record.ino, record: { ...bare, size: data.length, dataOffset: 0 }, chunks: count }));
  for (let index = 0; index < count; index += 1) {
    writes.push(chunks.put({ workspace, ino: record.ino, index, data: data.slice(index * chunkBytes, (index + 1) * chunkBytes) }));
  }
}

/** The records of `workspace` (a workspace or a restore point), chunked content joined. */
async function readRecords(tx: ReadTransaction, workspace: string): Promise<InodeRecord[]> {
  const rows: InodeRow[] = await tx.objectStore('inodes').index('byWorkspace').getAll(workspace);
  const records: InodeRecord[] = [];
  for (const row of rows) {
    if (row.chunks === undefined) {
      records.push(row.record);
      continue;
    }
    const size = row.record.size ?? 0;
    const data = new Uint8Array(size);
    const pieces = await tx.objectStore('chunks').getAll(chunkRange(workspace, row.ino));
    let offset = 0;
    for (const piece of pieces) {
      data.set(piece.data.subarray(0, size - offset), offset);
      offset += piece.data.length;
    }
    if (pieces.length !== row.chunks || offset !== size) throw new StoreError(`inode ${row.ino} of ${workspace}: ${pieces.length} of ${row.chunks} chunks stored (${offset} of ${size} bytes)`);
    records.push({ ...row.record, data, dataOffset: 0 });
  }
  return records;
}

/** Deletes every inode and chunk row of `workspace` (a workspace or a restore point). */
async function clearFiles(tx: FilesTransaction, workspace: string, writes: Array<Promise<unknown>>): Promise<void> {
  const inodeKeys = await tx.objectStore('inodes').index('byWorkspace').getAllKeys(workspace);
  const chunkKeys = await tx.objectStore('chunks').index('byWorkspace').getAllKeys(workspace);
  for (const key of inodeKeys) writes.push(tx.objectStore('inodes').delete(key));
  for (const key of chunkKeys) writes.push(tx.objectStore('chunks').delete(key));
}


/** The browser refused to store more (the origin's storage quota is used up). */
export class StoreQuotaError extends Error {
  override readonly name = 'StoreQuotaError';
}

/** Any other failure of a save; the stored workspace is unchanged. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    message: string,
    /** The browser's name for the failure (a DOMException name such as 'UnknownError'). */
    readonly browserError = '',
  ) {
    super(message);
  }
}

export interface StoredWorkspace {
  meta: WorkspaceMeta;
  state: SessionState;
  values: Partial<Record<ValueKey, unknown>>;
}

function isQuotaError(error: unknown): boolean {
  return error instanceof DOMException ? error.name === 'QuotaExceededError' : error instanceof Error && error.name === 'QuotaExceededError';
}

function wrap(error: unknown, what: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (isQuotaError(error)) return new StoreQuotaError(`${what}: the browser's storage quota is used up (${message})`);
  return new StoreError(`${what}: ${message}`, error instanceof Error ? error.name : '');
}

/** Aborts a transaction after a failed write so none of its writes commit (a synchronous
 * error such as DataCloneError does not abort it by itself). */
function abortQuietly(tx: { abort(): void; done: Promise<void> }, writes: Array<Promise<unknown>>): void {
  for (const write of [...writes, tx.done]) write.catch(() => undefined);
  try {
    tx.abort();
  } catch {
    // Already finished (aborted by the failure itself).
  }
}

export class WorkspaceStore {
  private constructor(
    private readonly db: IDBPDatabase<PlaygroundSchema>,
    private readonly chunkBytes: number,
  ) {}

  /**
   * Opens (creating or migrating) the database. Tests use fake-indexeddb's globals, and
   * small chunks (`chunkBytes`) to exercise chunking without megabytes.
   */
  static async open(name = DB_NAME, options: { chunkBytes?: number } = {}): Promise<WorkspaceStore> {
    const db = await openDB<PlaygroundSchema>(name, SCHEMA_VERSION, {
      upgrade(database, oldVersion, newVersion, transaction) {
        for (const migration of migrationsBetween(oldVersion, newVersion ?? SCHEMA_VERSION)) migration.apply(database, transaction);
      },
    });
    return new WorkspaceStore(db, options.chunkBytes ?? CHUNK_BYTES);
  }

  close(): void {
    this.db.close();
  }

  async list(): Promise<WorkspaceMeta[]> {
    return this.db.getAll('workspaces');
  }

  async load(workspace: string): Promise<StoredWorkspace | undefined> {
    const tx = this.db.transaction(['workspaces', 'inodes', 'chunks', 'values'], 'readonly');
    const meta = await tx.objectStore('workspaces').get(workspace);
    if (meta === undefined) return undefined;
    const records = await readRecords(tx, workspace);
    const valueRows: ValueRow[] = await tx.objectStore('values').index('byWorkspace').getAll(workspace);
    await tx.done;
    const values: Partial<Record<ValueKey, unknown>> = {};
    for (const row of valueRows) values[row.key] = row.value;
    const shellState = values.shellState instanceof Uint8Array ? values.shellState : new Uint8Array(0);
    return { meta, state: { records, shellState }, values };
  }

  /** Applies pending changes to `workspace` in one transaction (creating it if needed). */
  async save(workspace: string, batch: PendingBatch, now = Date.now()): Promise<void> {
    const tx = this.db.transaction(['workspaces', 'inodes', 'chunks', 'values'], 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    try {
      const metas = tx.objectStore('workspaces');
      const meta = (await metas.get(workspace)) ?? { id: workspace, name: workspace, createdMs: now, updatedMs: now, format: ROW_FORMAT };
      writes.push(metas.put({ ...meta, updatedMs: now }));
      for (const ino of batch.deleted) {
        writes.push(tx.objectStore('inodes').delete([workspace, ino]));
        writes.push(tx.objectStore('chunks').delete(chunkRange(workspace, ino)));
      }
      for (const record of batch.records) putRecord(tx, workspace, record, writes, this.chunkBytes);
      for (const [key, value] of Object.entries(batch.values)) writes.push(tx.objectStore('values').put({ workspace, key: key as ValueKey, value }));
      await Promise.all([...writes, tx.done]);
    } catch (error) {
      abortQuietly(tx, writes);
      throw wrap(error, `saving workspace ${workspace}`);
    }
  }

  /** Replaces the whole of `workspace` (reset, import, restore, fork) in one transaction. */
  async replace(workspace: string, state: SessionState, extra: Partial<Record<ValueKey, unknown>> = {}, now = Date.now()): Promise<void> {
    const tx = this.db.transaction(['workspaces', 'inodes', 'chunks', 'values'], 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    try {
      const metas = tx.objectStore('workspaces');
      const meta = (await metas.get(workspace)) ?? { id: workspace, name: workspace, createdMs: now, updatedMs: now, format: ROW_FORMAT };
      await clearFiles(tx, workspace, writes);
      writes.push(metas.put({ ...meta, updatedMs: now }));
      for (const record of state.records) putRecord(tx, workspace, record, writes, this.chunkBytes);
      writes.push(tx.objectStore('values').put({ workspace, key: 'shellState', value: state.shellState }));
      for (const [key, value] of Object.entries(extra)) writes.push(tx.objectStore('values').put({ workspace, key: key as ValueKey, value }));
      await Promise.all([...writes, tx.done]);
    } catch (error) {
      abortQuietly(tx, writes);
      throw wrap(error, `replacing workspace ${workspace}`);
    }
  }

  async remove(workspace: string): Promise<void> {
    const tx = this.db.transaction(['workspaces', 'inodes', 'chunks', 'values', 'snapshots'], 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    await clearFiles(tx, workspace, writes);
    const snapshotRows = await tx.objectStore('snapshots').index('byWorkspace').getAll(workspace);
    for (const row of snapshotRows) await clearFiles(tx, snapshotKey(workspace, row.id), writes);
    const valueKeys = await tx.objectStore('values').index('byWorkspace').getAllKeys(workspace);
    await Promise.all([
      ...writes,
      tx.objectStore('workspaces').delete(workspace),
      ...valueKeys.map((k) => tx.objectStore('values').delete(k)),
      ...snapshotRows.map((row) => tx.objectStore('snapshots').delete([workspace, row.id])),
      tx.done,
    ]);
  }

  // ---- restore points ------------------------------------------------------------------------

  /** Stores a restore point: its metadata and shell state, its files like a workspace's. */
  async saveSnapshot(row: { workspace: string; id: number; createdMs: number; label: string; state: SessionState }): Promise<void> {
    const tx = this.db.transaction(['snapshots', 'inodes', 'chunks'], 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    const key = snapshotKey(row.workspace, row.id);
    try {
      await clearFiles(tx, key, writes);
      for (const record of row.state.records) putRecord(tx, key, record, writes, this.chunkBytes);
      writes.push(tx.objectStore('snapshots').put({ workspace: row.workspace, id: row.id, createdMs: row.createdMs, label: row.label, shellState: row.state.shellState }));
      await Promise.all([...writes, tx.done]);
    } catch (error) {
      abortQuietly(tx, writes);
      throw wrap(error, `saving a restore point of ${row.workspace}`);
    }
  }

  /** The workspace's restore points, oldest first, without their states. */
  async listSnapshots(workspace: string): Promise<Array<Omit<SnapshotRow, 'state' | 'shellState'>>> {
    const rows = await this.db.getAllFromIndex('snapshots', 'byWorkspace', workspace);
    return rows.map(({ workspace: ws, id, createdMs, label }) => ({ workspace: ws, id, createdMs, label })).sort((a, b) => a.id - b.id);
  }

  async loadSnapshot(workspace: string, id: number): Promise<(SnapshotRow & { state: SessionState }) | undefined> {
    const tx = this.db.transaction(['snapshots', 'inodes', 'chunks'], 'readonly');
    const row = await tx.objectStore('snapshots').get([workspace, id]);
    if (row === undefined) return undefined;
    // Version 3 kept the whole state in the row.
    const state = row.state ?? { records: await readRecords(tx, snapshotKey(workspace, id)), shellState: row.shellState ?? new Uint8Array(0) };
    await tx.done;
    return { ...row, state };
  }

  async removeSnapshot(workspace: string, id: number): Promise<void> {
    const tx = this.db.transaction(['snapshots', 'inodes', 'chunks'], 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    await clearFiles(tx, snapshotKey(workspace, id), writes);
    await Promise.all([...writes, tx.objectStore('snapshots').delete([workspace, id]), tx.done]);
  }
}
