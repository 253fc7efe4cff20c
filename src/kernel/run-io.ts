// A run's stdin, stdout and stderr as the kernel sees them. Processes hold descriptors to
// the session's console, which forwards to whichever run is current, so background jobs
// started by one run write into the output of the run that is going on when they write.

import { WaitQueue, type MaybeBlocked } from './fd/blocker.js';
import type { InputSource, OutputTarget } from './fd/stream-descriptions.js';
import type { Tty } from './fd/tty.js';

export type StreamName = 'stdout' | 'stderr';

export interface CaptureLimits {
  stdoutBytes: number;
  stderrBytes: number;
}

/**
 * Output of one run: streamed as it comes, up to its limit (then `truncated`). Nothing is
 * kept here: the host collects the streamed chunks, and the reply only says how it ended.
 */
export class RunCapture {
  private readonly sizes: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  readonly truncated: Record<StreamName, boolean> = { stdout: false, stderr: false };

  constructor(
    private readonly limits: CaptureLimits,
    private readonly onChunk: (stream: StreamName, bytes: Uint8Array) => void,
  ) {}

  write(stream: StreamName, bytes: Uint8Array): void {
    const limit = stream === 'stdout' ? this.limits.stdoutBytes : this.limits.stderrBytes;
    const room = limit - this.sizes[stream];
    if (room <= 0) {
      if (bytes.length > 0) this.truncated[stream] = true;
      return;
    }
    // A copy: the bytes are a view of the writer's memory, which it reuses at once.
    const kept = bytes.length > room ? bytes.slice(0, room) : bytes.slice();
    if (bytes.length > room) this.truncated[stream] = true;
    this.sizes[stream] += kept.length;
    this.onChunk(stream, kept);
  }
}

/** The session's console: forwards output to the current run (or drops it between runs). */
export class SessionConsole implements OutputTarget {
  current: RunCapture | undefined;
  terminal = false;

  constructor(readonly tty?: Tty) {}

  write(stream: StreamName, bytes: Uint8Array): void {
    this.current?.write(stream, bytes);
  }
}

/** The session's stdin: the current run's input, or EOF between runs. */
export class SessionInput implements InputSource {
  current: RunInput | undefined;
  terminal = false;

  constructor(readonly tty?: Tty) {}

  read(max: number): MaybeBlocked<Uint8Array> {
    if (this.current === undefined) return new Uint8Array(0);
    return this.current.read(max);
  }
}

/** Input of one run: bytes given up front, then (if open) whatever the host sends. */
export class RunInput {
  private readonly queue: Uint8Array[] = [];
  private closed: boolean;
  private readonly waiters = new WaitQueue('external', 'terminal input');

  constructor(
    initial: Uint8Array | undefined,
    keepOpen: boolean,
    /** Called when a read finds nothing and waits: the terminal then sends a typed line. */
    private readonly onWait?: () => void,
    /** Called when input arrives (or ends) after such a wait. */
    private readonly onInput?: () => void,
  ) {
    if (initial !== undefined && initial.length > 0) this.queue.push(initial);
    this.closed = !keepOpen;
  }

  push(bytes: Uint8Array): void {
    if (this.closed) return;
    this.onInput?.();
    this.queue.push(bytes);
    this.waiters.wakeAll();
  }

  close(): void {
    this.onInput?.();
    this.closed = true;
    this.waiters.wakeAll();
  }

  read(max: number): MaybeBlocked<Uint8Array> {
    const head = this.queue[0];
    if (head === undefined) {
      if (this.closed) return new Uint8Array(0);
      const blocker = this.waiters.wait();
      this.onWait?.();
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
