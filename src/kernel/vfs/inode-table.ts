// The inode table, with copy-on-write snapshots.
//
// Inodes live in fixed-size chunks. A snapshot copies only the array of chunk references
// (inodes/256 pointers) and bumps the generation; afterwards the first change to a chunk
// copies that chunk, and the first change to an inode clones that inode. So taking a
// checkpoint is O(chunks) and keeping it costs O(changed inodes).

import type { Inode } from './inode.js';
import { cloneInode } from './inode.js';

const CHUNK_BITS = 8;
const CHUNK_SIZE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIZE - 1;

type Chunk = (Inode | undefined)[];

/** What a snapshot holds: frozen chunks plus the counters that go with them. */
export interface TableSnapshot {
  readonly chunks: readonly Chunk[];
  readonly nextIno: number;
  readonly gen: number;
}

export class InodeTable {
  private chunks: Chunk[] = [];
  /** Generation in which each chunk array was last copied (only then may it be mutated). */
  private chunkGens: number[] = [];
  private generation = 1;
  private next = 1;

  get gen(): number {
    return this.generation;
  }

  get nextIno(): number {
    return this.next;
  }

  get(ino: number): Inode | undefined {
    return this.chunks[ino >>> CHUNK_BITS]?.[ino & CHUNK_MASK];
  }

  /** Allocates an inode number. */
  allocate(): number {
    return this.next++;
  }

  /** Reserves numbers up to `ino` (when loading records that name their inode numbers). */
  reserveThrough(ino: number): void {
    if (ino >= this.next) this.next = ino + 1;
  }

  /** Stores `inode` (already owned by the current generation) under its number. */
  put(inode: Inode): void {
    this.writableChunk(inode.ino)[inode.ino & CHUNK_MASK] = inode;
  }

  delete(ino: number): void {
    if (this.get(ino) === undefined) return;
    this.writableChunk(ino)[ino & CHUNK_MASK] = undefined;
  }

  /** The inode, cloned first if a snapshot still shares it. */
  mutable(ino: number): Inode | undefined {
    const inode = this.get(ino);
    if (inode === undefined || inode.gen === this.generation) return inode;
    const copy = cloneInode(inode, this.generation);
    this.put(copy);
    return copy;
  }

  snapshot(): TableSnapshot {
    const snap: TableSnapshot = { chunks: this.chunks.slice(), nextIno: this.next, gen: this.generation };
    this.generation += 1;
    return snap;
  }

  restore(snap: TableSnapshot): void {
    this.chunks = snap.chunks.slice();
    this.chunkGens = new Array<number>(this.chunks.length).fill(0);
    this.next = snap.nextIno;
    // A new generation, so that everything taken from the snapshot is copied before change.
    this.generation = Math.max(this.generation, snap.gen) + 1;
  }

  /** Every live inode, in inode-number order. */
  *all(): IterableIterator<Inode> {
    for (const chunk of this.chunks) {
      if (chunk === undefined) continue;
      for (const inode of chunk) if (inode !== undefined) yield inode;
    }
  }

  private writableChunk(ino: number): Chunk {
    const index = ino >>> CHUNK_BITS;
    while (this.chunks.length <= index) {
      this.chunks.push(new Array<Inode | undefined>(CHUNK_SIZE).fill(undefined));
      this.chunkGens.push(this.generation);
    }
    if (this.chunkGens[index] !== this.generation) {
      this.chunks[index] = (this.chunks[index] as Chunk).slice();
      this.chunkGens[index] = this.generation;
    }
    return this.chunks[index] as Chunk;
  }
}
