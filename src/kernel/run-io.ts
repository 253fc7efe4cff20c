// A run's stdin, stdout and stderr as the kernel sees them. Processes hold descriptors to
// the session's console, which forwards to whichever run is current, so background jobs
// started by one run write into the output of the run that is going on when they write.

import { Blocker, type MaybeBlocked } from './proc/blocker.js';
import type { InputSource, OutputTarget } from './wasi/stream-descriptions.js';

export type StreamName = 'stdout' | 'stderr';

export interface CaptureLimits {
  stdoutBytes: number;
  stderrBytes: number;
}

/** Output of one run: kept up to its limit (then `truncated`), streamed as it comes. */
export class RunCapture {
  private readonly chunks: Record<StreamName, Uint8Array[]> = { stdout: [], stderr: [] };
  private readonly sizes: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  readonly truncated: Record<StreamName, boolean> = { stdout: false, stderr: false };

  constructor(
    private readonly limits: CaptureLimits,
    private readonly onChunk?: (stream: StreamName, bytes: Uint8Array) => void,
  ) {}

  write(stream: StreamName, bytes: Uint8Array): void {
    const limit = stream === 'stdout' ? this.limits.stdoutBytes : this.limits.stderrBytes;
    const room = limit - this.sizes[stream];
    if (room <= 0) {
      if (bytes.length > 0) this.truncated[stream] = true;
      return;
    }
    const kept = bytes.length > room ? bytes.slice(0, room) : bytes.slice();
    if (bytes.length > room) this.truncated[stream] = true;
    this.chunks[stream].push(kept);
    this.sizes[stream] += kept.length;
    this.onChunk?.(stream, kept);
  }

  collect(stream: StreamName): Uint8Array {
    const out = new Uint8Array(this.sizes[stream]);
    let offset = 0;
    for (const chunk of this.chunks[stream]) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }
}

/** The session's console: forwards output to the current run (or drops it between runs). */
export class SessionConsole implements OutputTarget {
  current: RunCapture | undefined;
  terminal = false;

  write(stream: StreamName, bytes: Uint8Array): void {
    this.current?.write(stream, bytes);
  }
}

/** The session's stdin: the current run's input, or EOF between runs. */
export class SessionInput implements InputSource {
  current: RunInput | undefined;
  terminal = false;

  read(max: number): MaybeBlocked<Uint8Array> {
    if (this.current === undefined) return new Uint8Array(0);
    return this.current.read(max);
  }
}

/** Input of one run: bytes given up front, then (if open) whatever the host sends. */
export class RunInput {
  private readonly queue: Uint8Array[] = [];
  private closed: boolean;
  private readonly waiters: Blocker[] = [];

  constructor(initial: Uint8Array | undefined, keepOpen: boolean) {
    if (initial !== undefined && initial.length > 0) this.queue.push(initial);
    this.closed = !keepOpen;
  }

  push(bytes: Uint8Array): void {
    if (this.closed) return;
    this.queue.push(bytes);
    for (const waiter of this.waiters.splice(0)) waiter.wake();
  }

  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.wake();
  }

  read(max: number): MaybeBlocked<Uint8Array> {
    const head = this.queue[0];
    if (head === undefined) {
      if (this.closed) return new Uint8Array(0);
      const blocker = new Blocker('external', 'terminal input');
      this.waiters.push(blocker);
      blocker.onSettle(() => {
        const index = this.waiters.indexOf(blocker);
        if (index >= 0) this.waiters.splice(index, 1);
      });
      return blocker;
    }
    if (head.length <= max) {
      this.queue.shift();
      return head;
    }
    this.queue[0] = head.subarray(max);
    return head.subarray(0, max);
  }
}
