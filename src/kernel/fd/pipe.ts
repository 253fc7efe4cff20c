// A pipe: a 64 KiB ring buffer with backpressure. A reader waits while it is empty and
// writers exist, and sees EOF after the last writer closes; a writer waits while it is
// full and gets EPIPE once every reader has closed. The buffer grows to the capacity as
// the data in it does: most pipes carry a few lines, and 64 KiB zeroed for each cost more
// than the pipe was used for.

import { Errno, fail } from '../errno.js';
import { WaitQueue, type MaybeBlocked } from './blocker.js';

export const PIPE_CAPACITY = 64 * 1024;
/** The buffer a pipe starts with once something is written. */
const MIN_BUFFER = 4096;

let nextPipeId = 1;

export class Pipe {
  readonly id = nextPipeId++;
  private buffer = new Uint8Array(0);
  private readonly capacityBytes: number;
  private start = 0;
  private length = 0;
  readers = 0;
  writers = 0;
  /** Writers that are the host (terminal input): waiting on them is not a deadlock. */
  hostWriters = 0;
  private readonly readWaiters = new WaitQueue('internal', 'pipe read');
  private readonly writeWaiters = new WaitQueue('internal', 'pipe write');

  constructor(capacity = PIPE_CAPACITY) {
    this.capacityBytes = capacity;
  }

  get available(): number {
    return this.length;
  }

  get capacity(): number {
    return this.capacityBytes;
  }

  /**
   * Reads up to `max` bytes. The result may be a view into the pipe's buffer, valid until
   * the next operation on the pipe: callers copy it out at once (fd_read does).
   */
  read(max: number, nonBlocking = false): MaybeBlocked<Uint8Array> {
    if (this.length === 0) {
      if (this.writers === 0) return new Uint8Array(0);
      if (nonBlocking) fail(Errno.AGAIN, 'pipe is empty');
      return this.readWaiters.wait(this.hostWriters > 0 ? 'external' : 'internal');
    }
    const count = Math.min(max, this.length);
    const firstPart = Math.min(count, this.buffer.length - this.start);
    let out: Uint8Array;
    if (firstPart === count) {
      out = this.buffer.subarray(this.start, this.start + count);
    } else {
      out = new Uint8Array(count);
      out.set(this.buffer.subarray(this.start, this.start + firstPart));
      out.set(this.buffer.subarray(0, count - firstPart), firstPart);
    }
    this.start = (this.start + count) % this.buffer.length;
    this.length -= count;
    // Rewinding to 0 when empty keeps later reads contiguous (views instead of copies); a
    // view handed out above is consumed before any write can overwrite it.
    if (this.length === 0) this.start = 0;
    if (this.writeWaiters.size > 0) this.writeWaiters.wakeAll();
    return out;
  }

  /** Writes as much as fits now (at least one byte), or waits for room. */
  write(data: Uint8Array, nonBlocking = false): MaybeBlocked<number> {
    if (this.readers === 0) fail(Errno.PIPE, 'broken pipe');
    if (data.length === 0) return 0;
    const room = this.capacityBytes - this.length;
    if (room === 0) {
      if (nonBlocking) fail(Errno.AGAIN, 'pipe is full');
      return this.writeWaiters.wait();
    }
    const count = Math.min(room, data.length);
    this.reserve(this.length + count);
    const end = (this.start + this.length) % this.buffer.length;
    const firstPart = Math.min(count, this.buffer.length - end);
    this.buffer.set(data.subarray(0, firstPart), end);
    if (firstPart < count) this.buffer.set(data.subarray(firstPart, count), 0);
    this.length += count;
    if (this.readWaiters.size > 0) this.readWaiters.wakeAll();
    return count;
  }

  /** Grows the buffer (in powers of two, up to the capacity) to hold `bytes`, keeping its data in order. */
  private reserve(bytes: number): void {
    if (bytes <= this.buffer.length) return;
    let size = Math.max(MIN_BUFFER, this.buffer.length * 2);
    while (size < bytes) size *= 2;
    const grown = new Uint8Array(Math.min(size, this.capacityBytes));
    const firstPart = Math.min(this.length, this.buffer.length - this.start);
    grown.set(this.buffer.subarray(this.start, this.start + firstPart));
    grown.set(this.buffer.subarray(0, this.length - firstPart), firstPart);
    this.buffer = grown;
    this.start = 0;
  }

  closeReader(): void {
    this.readers -= 1;
    if (this.readers === 0) this.writeWaiters.wakeAll();
  }

  closeWriter(host = false): void {
    this.writers -= 1;
    if (host) this.hostWriters -= 1;
    if (this.writers === 0) this.readWaiters.wakeAll();
  }
}
