import { describe, expect, it } from 'vitest';
import { READ_BUFFER_BYTES, READ_REGION_MIN, regionReads } from './read-regions.js';

const KiB = 1024;
/** A quarter of a read buffer: four reads fill one. */
const QUARTER = READ_BUFFER_BYTES / 4;

describe('regionReads', () => {
  /** Reads as Node does with `onread`: ask for a region, fill part of it, hand it over. */
  const reader = () => {
    const chunks: Buffer[] = [];
    const reads = regionReads((chunk) => (chunks.push(chunk), true));
    const read = (bytes: number, fill: number): Buffer => {
      const region = reads.onread.buffer();
      region.fill(fill, 0, bytes);
      reads.onread.callback(bytes, region);
      const chunk = chunks.at(-1) as Buffer;
      reads.retain(chunk);
      return chunk;
    };
    return { reads, read };
  };

  it('reads into successive regions of one buffer, then a new one', () => {
    const { read } = reader();
    const first = read(100 * KiB, 1);
    const second = read(READ_BUFFER_BYTES - 100 * KiB - (READ_REGION_MIN - 8 * KiB), 2);
    expect(second.buffer).toBe(first.buffer);
    expect(second.byteOffset).toBe(first.byteOffset + 100 * KiB);
    // What is left is less than a read's worth: the next read goes elsewhere.
    expect(read(10, 3).buffer).not.toBe(first.buffer);
  });

  it('never reads into a buffer again while bytes handed on from it are not released, and reuses it after', () => {
    const { reads, read } = reader();
    const firstBuffer = Array.from({ length: 4 }, (_, i) => read(QUARTER, 10 + i));
    // Two more buffers' worth while the first is still in use.
    const later = Array.from({ length: 8 }, (_, i) => read(QUARTER, 20 + i));
    for (const chunk of later) expect(chunk.buffer).not.toBe(firstBuffer[0]?.buffer);
    firstBuffer.forEach((chunk, i) => expect(chunk.every((byte) => byte === 10 + i)).toBe(true));
    // Released (here as one merged view and one chunk), the first buffer comes back.
    const [a, b, c, d] = firstBuffer as [Buffer, Buffer, Buffer, Buffer];
    reads.release(Buffer.from(a.buffer, a.byteOffset, a.length + b.length + c.length));
    expect(read(QUARTER, 30).buffer).not.toBe(a.buffer);
    reads.release(d);
    const next = Array.from({ length: 8 }, (_, i) => read(QUARTER, 40 + i));
    expect(next.some((chunk) => chunk.buffer === a.buffer)).toBe(true);
  });
});
