// Pending changes of one workspace between saves: commit deltas merged by inode (a later
// record replaces an earlier one, a deletion cancels a pending record) plus the latest
// values. A failed save puts its batch back under anything newer, so nothing is lost and
// the next save retries it.

import type { InodeRecord } from '../../protocol/records.js';
import type { SessionDelta } from '../types.js';
import type { ValueKey } from './schema.js';

export interface PendingBatch {
  records: InodeRecord[];
  deleted: number[];
  values: Partial<Record<ValueKey, unknown>>;
}

export class DeltaQueue {
  private records = new Map<number, InodeRecord>();
  private deleted = new Set<number>();
  private values: Partial<Record<ValueKey, unknown>> = {};

  get empty(): boolean {
    return this.records.size === 0 && this.deleted.size === 0 && Object.keys(this.values).length === 0;
  }

  addDelta(delta: SessionDelta): void {
    for (const ino of delta.deleted) {
      this.records.delete(ino);
      this.deleted.add(ino);
    }
    for (const record of delta.records) {
      this.deleted.delete(record.ino);
      this.records.set(record.ino, record);
    }
    this.values.shellState = delta.shellState;
  }

  setValue(key: ValueKey, value: unknown): void {
    this.values[key] = value;
  }

  /** Takes everything pending; the queue is empty afterwards. */
  take(): PendingBatch {
    const batch = { records: [...this.records.values()], deleted: [...this.deleted], values: this.values };
    this.records = new Map();
    this.deleted = new Set();
    this.values = {};
    return batch;
  }

  /** Puts back a batch whose save failed, under the changes that arrived since. */
  putBack(batch: PendingBatch): void {
    const newerRecords = this.records;
    const newerDeleted = this.deleted;
    const newerValues = this.values;
    this.records = new Map(batch.records.map((r) => [r.ino, r]));
    this.deleted = new Set(batch.deleted);
    this.values = { ...batch.values };
    for (const ino of newerDeleted) {
      this.records.delete(ino);
      this.deleted.add(ino);
    }
    for (const [ino, record] of newerRecords) {
      this.deleted.delete(ino);
      this.records.set(ino, record);
    }
    Object.assign(this.values, newerValues);
  }
}
