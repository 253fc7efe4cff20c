// A pipe: a 64 KiB ring buffer with backpressure. A reader waits while it is empty and
// writers exist, and sees EOF after the last writer closes; a writer waits while it is
// full and gets EPIPE once every reader has closed.

import { Errno, fail } from '../errno.js';
import { Blocker, type MaybeBlocked } from './blocker.js';

export const PIPE_CAPACITY = 64 * 1024;

let nextPipeId = 1;

export class Pipe {
  readonly id = nextPipeId++;
  private readonly buffer: Uint8Array;
  private start = 0;
  private length = 0;
  readers = 0;
  writers = 0;
  /** Writers that are the host (terminal input): waiting on them is not a deadlock. */
  hostWriters = 0;
  private readonly readWaiters: Blocker[] = [];
  private readonly writeWaiters: Blocker[] = [];

  constructor(capacity = PIPE_CAPACITY) {
    this.buffer = new Uint8Array(capacity);
  }

  get available(): number {
    return this.length;
  }

  get capacity(): number {
    return this.buffer.length;
  }

  /**
   * Reads up to `max` bytes. The result may be a view into the pipe's buffer, valid until
   * the next operation on the pipe: callers copy it out at once (fd_read does).
   */
  read(max: number, nonBlocking = false): MaybeBlocked<Uint8Array> {
    if (this.length === 0) {
      if (this.writers === 0) return new Uint8Array(0);
      if (nonBlocking) fail(Errno.AGAIN, 'pipe is empty');
      return this.waitIn(this.readWaiters, this.hostWriters > 0 ? 'external' : 'internal', 'pipe read');
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
    if (this.writeWaiters.length > 0) wakeAll(this.writeWaiters);
    return out;
  }

  /** Writes as much as fits now (at least one byte), or waits for room. */
  write(data: Uint8Array, nonBlocking = false): MaybeBlocked<number> {
    if (this.readers === 0) fail(Errno.PIPE, 'broken pipe');
    if (data.length === 0) return 0;
    const room = this.buffer.length - this.length;
    if (room === 0) {
      if (nonBlocking) fail(Errno.AGAIN, 'pipe is full');
      return this.waitIn(this.writeWaiters, 'internal', 'pipe write');
    }
    const count = Math.min(room, data.length);
    const end = (this.start + this.length) % this.buffer.length;
    const firstPart = Math.min(count, this.buffer.length - end);
    this.buffer.set(data.subarray(0, firstPart), end);
    if (firstPart < count) this.buffer.set(data.subarray(firstPart, count), 0);
    this.length += count;
    if (this.readWaiters.length > 0) wakeAll(this.readWaiters);
    return count;
  }

  closeReader(): void {
    this.readers -= 1;
    if (this.readers === 0) wakeAll(this.writeWaiters);
  }

  closeWriter(host = false): void {
    this.writers -= 1;
    if (host) this.hostWriters -= 1;
    if (this.writers === 0) wakeAll(this.readWaiters);
  }

  private waitIn(queue: Blocker[], kind: 'internal' | 'external', reason: string): Blocker {
    const blocker = new Blocker(kind, reason);
    queue.push(blocker);
    blocker.onSettle(() => {
      const index = queue.indexOf(blocker);
      if (index >= 0) queue.splice(index, 1);
    });
    return blocker;
  }
}

function wakeAll(queue: Blocker[]): void {
  for (const blocker of queue.slice()) blocker.wake();
}
