// The playground's workspace store on IndexedDB (through `idb`). Each save is exactly one
// readwrite transaction over `workspaces`, `inodes` and `values`: IndexedDB commits it
// whole or not at all, so a quota error, a crash or a closed tab leaves the previous
// complete workspace. Quota errors surface as StoreQuotaError for the page to show.

import { openDB, type IDBPDatabase } from 'idb';
import type { SessionState } from '../types.js';
import type { PendingBatch } from './delta-queue.js';
import { DB_NAME, ROW_FORMAT, SCHEMA_VERSION, migrationsBetween, type PlaygroundSchema, type ValueKey, type SnapshotRow, type ValueRow, type WorkspaceMeta } from './schema.js';

/** The browser refused to store more (the origin's storage quota is used up). */
export class StoreQuotaError extends Error {
  override readonly name = 'StoreQuotaError';
}

/** Any other failure of a save; the stored workspace is unchanged. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
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
  return new StoreError(`${what}: ${message}`);
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
  private constructor(private readonly db: IDBPDatabase<PlaygroundSchema>) {}

  /** Opens (creating or migrating) the database. Tests use fake-indexeddb's globals. */
  static async open(name = DB_NAME): Promise<WorkspaceStore> {
    const db = await openDB<PlaygroundSchema>(name, SCHEMA_VERSION, {
      upgrade(database, oldVersion, newVersion, transaction) {
        for (const migration of migrationsBetween(oldVersion, newVersion ?? SCHEMA_VERSION)) migration.apply(database, transaction);
      },
    });
    return new WorkspaceStore(db);
  }

  close(): void {
    this.db.close();
  }

  async list(): Promise<WorkspaceMeta[]> {
    return this.db.getAll('workspaces');
  }

  async load(workspace: string): Promise<StoredWorkspace | undefined> {
    const tx = this.db.transaction(['workspaces', 'inodes', 'values'], 'readonly');
    const meta = await tx.objectStore('workspaces').get(workspace);
    if (meta === undefined) return undefined;
    const rows = await tx.objectStore('inodes').index('byWorkspace').getAll(workspace);
    const valueRows: ValueRow[] = await tx.objectStore('values').index('byWorkspace').getAll(workspace);
    await tx.done;
    const values: Partial<Record<ValueKey, unknown>> = {};
    for (const row of valueRows) values[row.key] = row.value;
    const shellState = values.shellState instanceof Uint8Array ? values.shellState : new Uint8Array(0);
    return { meta, state: { records: rows.map((row) => row.record), shellState }, values };
  }

  /** Applies pending changes to `workspace` in one transaction (creating it if needed). */
  async save(workspace: string, batch: PendingBatch, now = Date.now()): Promise<void> {
    const tx = this.db.transaction(['workspaces', 'inodes', 'values'], 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    try {
      const metas = tx.objectStore('workspaces');
      const inodes = tx.objectStore('inodes');
      const values = tx.objectStore('values');
      const meta = (await metas.get(workspace)) ?? { id: workspace, name: workspace, createdMs: now, updatedMs: now, format: ROW_FORMAT };
      writes.push(metas.put({ ...meta, updatedMs: now }));
      for (const ino of batch.deleted) writes.push(inodes.delete([workspace, ino]));
      for (const record of batch.records) writes.push(inodes.put({ workspace, ino: record.ino, record }));
      for (const [key, value] of Object.entries(batch.values)) writes.push(values.put({ workspace, key: key as ValueKey, value }));
      await Promise.all([...writes, tx.done]);
    } catch (error) {
      abortQuietly(tx, writes);
      throw wrap(error, `saving workspace ${workspace}`);
    }
  }

  /** Replaces the whole of `workspace` (reset, import, restore, fork) in one transaction. */
  async replace(workspace: string, state: SessionState, extra: Partial<Record<ValueKey, unknown>> = {}, now = Date.now()): Promise<void> {
    const tx = this.db.transaction(['workspaces', 'inodes', 'values'], 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    try {
      const metas = tx.objectStore('workspaces');
      const inodes = tx.objectStore('inodes');
      const values = tx.objectStore('values');
      const meta = (await metas.get(workspace)) ?? { id: workspace, name: workspace, createdMs: now, updatedMs: now, format: ROW_FORMAT };
      const oldKeys = await inodes.index('byWorkspace').getAllKeys(workspace);
      writes.push(metas.put({ ...meta, updatedMs: now }));
      for (const key of oldKeys) writes.push(inodes.delete(key));
      for (const record of state.records) writes.push(inodes.put({ workspace, ino: record.ino, record }));
      writes.push(values.put({ workspace, key: 'shellState', value: state.shellState }));
      for (const [key, value] of Object.entries(extra)) writes.push(values.put({ workspace, key: key as ValueKey, value }));
      await Promise.all([...writes, tx.done]);
    } catch (error) {
      abortQuietly(tx, writes);
      throw wrap(error, `replacing workspace ${workspace}`);
    }
  }

  async remove(workspace: string): Promise<void> {
    const tx = this.db.transaction(['workspaces', 'inodes', 'values', 'snapshots'], 'readwrite');
    const inodeKeys = await tx.objectStore('inodes').index('byWorkspace').getAllKeys(workspace);
    const valueKeys = await tx.objectStore('values').index('byWorkspace').getAllKeys(workspace);
    const snapshotKeys = await tx.objectStore('snapshots').index('byWorkspace').getAllKeys(workspace);
    await Promise.all([
      tx.objectStore('workspaces').delete(workspace),
      ...inodeKeys.map((k) => tx.objectStore('inodes').delete(k)),
      ...valueKeys.map((k) => tx.objectStore('values').delete(k)),
      ...snapshotKeys.map((k) => tx.objectStore('snapshots').delete(k)),
      tx.done,
    ]);
  }

  // ---- restore points ------------------------------------------------------------------------

  async saveSnapshot(row: SnapshotRow): Promise<void> {
    try {
      await this.db.put('snapshots', row);
    } catch (error) {
      throw wrap(error, `saving a restore point of ${row.workspace}`);
    }
  }

  /** The workspace's restore points, oldest first, without their states. */
  async listSnapshots(workspace: string): Promise<Array<Omit<SnapshotRow, 'state'>>> {
    const rows = await this.db.getAllFromIndex('snapshots', 'byWorkspace', workspace);
    return rows.map(({ workspace: ws, id, createdMs, label }) => ({ workspace: ws, id, createdMs, label })).sort((a, b) => a.id - b.id);
  }

  async loadSnapshot(workspace: string, id: number): Promise<SnapshotRow | undefined> {
    return this.db.get('snapshots', [workspace, id]);
  }

  async removeSnapshot(workspace: string, id: number): Promise<void> {
    await this.db.delete('snapshots', [workspace, id]);
  }
}
