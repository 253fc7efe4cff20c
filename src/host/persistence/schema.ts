// The IndexedDB schema of the playground's persisted workspaces, and its migrations.
//
// A workspace is stored as rows, so that a save touches only what changed:
//   workspaces  { id, name, createdMs, updatedMs, format }           key: id
//   inodes      { workspace, ino, record }                           key: [workspace, ino]
//   values      { workspace, key, value }                            key: [workspace, key]
//   chunks      { workspace, ino, index, data }                      key: [workspace, ino, index]
//   snapshots   { workspace, id, createdMs, label, shellState }      key: [workspace, id]
// `values` holds the shell state, history, open tabs and settings. Every save is one
// transaction over these stores, so a crash mid-save leaves the previous complete state.
//
// A file larger than CHUNK_BYTES keeps its content in `chunks` (its inode row has
// `chunks: n` and a record without data): browsers refuse a single value past a size
// (Chromium: about 127 MiB), and a file within the disk limit must always be storable.
// A restore point keeps its inodes and chunks under snapshotKey(workspace, id).

import type { IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';
import type { InodeRecord } from '../../protocol/records.js';
import type { SessionState } from '../types.js';

export const DB_NAME = 'airlock-playground';

/** The IndexedDB version: one per entry of MIGRATIONS. */
export const SCHEMA_VERSION = 4;

/** Content above this size is stored in pieces of this size. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/** Where a restore point's inodes and chunks are kept (a workspace id no page can open). */
export function snapshotKey(workspace: string, id: number): string {
  return `${workspace}\u0000snapshot\u0000${id}`;
}

/** The row format inside the stores (records' shape); bumped when a row needs rewriting. */
export const ROW_FORMAT = 1;

export interface WorkspaceMeta {
  id: string;
  name: string;
  createdMs: number;
  updatedMs: number;
  format: number;
}

export interface InodeRow {
  workspace: string;
  ino: number;
  record: InodeRecord;
  /** The content is in this many rows of `chunks` (the record then carries no data). */
  chunks?: number;
}

export interface ChunkRow {
  workspace: string;
  ino: number;
  index: number;
  data: Uint8Array;
}

export type ValueKey = 'shellState' | 'history' | 'tabs' | 'settings';

export interface ValueRow {
  workspace: string;
  key: ValueKey;
  value: unknown;
}

/** A restore point. Its files are rows under snapshotKey(); `state` is how version 3 kept them. */
export interface SnapshotRow {
  workspace: string;
  id: number;
  createdMs: number;
  label: string;
  shellState?: Uint8Array;
  state?: SessionState;
}

export interface PlaygroundSchema {
  workspaces: { key: string; value: WorkspaceMeta };
  inodes: { key: [string, number]; value: InodeRow; indexes: { byWorkspace: string } };
  values: { key: [string, string]; value: ValueRow; indexes: { byWorkspace: string } };
  snapshots: { key: [string, number]; value: SnapshotRow; indexes: { byWorkspace: string } };
  chunks: { key: [string, number, number]; value: ChunkRow; indexes: { byWorkspace: string } };
}

type UpgradeTransaction = IDBPTransaction<PlaygroundSchema, StoreNames<PlaygroundSchema>[], 'versionchange'>;

/** One step of the schema: what version `to` adds to version `to - 1`. */
export interface Migration {
  to: number;
  describe: string;
  apply(db: IDBPDatabase<PlaygroundSchema>, transaction: UpgradeTransaction): void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    to: 1,
    describe: 'workspaces and their inodes',
    apply(db) {
      db.createObjectStore('workspaces', { keyPath: 'id' });
      const inodes = db.createObjectStore('inodes', { keyPath: ['workspace', 'ino'] });
      inodes.createIndex('byWorkspace', 'workspace');
    },
  },
  {
    to: 2,
    describe: 'per-workspace values (shell state, history, tabs, settings)',
    apply(db) {
      const values = db.createObjectStore('values', { keyPath: ['workspace', 'key'] });
      values.createIndex('byWorkspace', 'workspace');
    },
  },
  {
    to: 3,
    describe: 'restore points kept with their workspace',
    apply(db) {
      const snapshots = db.createObjectStore('snapshots', { keyPath: ['workspace', 'id'] });
      snapshots.createIndex('byWorkspace', 'workspace');
    },
  },
  {
    to: 4,
    // Rows of version 3 (content inline, restore points whole) stay readable as they are.
    describe: 'large files stored in chunks; restore points stored like workspaces',
    apply(db) {
      const chunks = db.createObjectStore('chunks', { keyPath: ['workspace', 'ino', 'index'] });
      chunks.createIndex('byWorkspace', 'workspace');
    },
  },
];

/** The migrations to run to bring a database at `oldVersion` to `newVersion`, in order. */
export function migrationsBetween(oldVersion: number, newVersion: number): Migration[] {
  if (newVersion < oldVersion) throw new RangeError(`the stored workspace schema (version ${oldVersion}) is newer than this playground (version ${newVersion}); update the page`);
  return MIGRATIONS.filter((m) => m.to > oldVersion && m.to <= newVersion);
}
