// A run's output as the host receives it: streamed to the caller's callbacks as it comes,
// and kept (up to the limits, again: the worker is untrusted) for the result.

import { terminalModeOf, type TerminalMode } from '../protocol/terminal.js';

export class RunOutput {
  private readonly chunks = { stdout: [] as Uint8Array[], stderr: [] as Uint8Array[] };
  private readonly sizes = { stdout: 0, stderr: 0 };
  readonly truncated = { stdout: false, stderr: false };
  private readonly decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };

  constructor(
    private readonly limits: { stdoutBytes: number; stderrBytes: number },
    private readonly callbacks: {
      onStdout?: (text: string, bytes: Uint8Array) => void;
      onStderr?: (text: string, bytes: Uint8Array) => void;
      onStdinWanted?: () => void;
      onTerminalMode?: (mode: TerminalMode) => void;
    },
  ) {}

  /** A program of this run changed the terminal's mode (the worker's terminal-mode event). */
  terminalMode(flags: number): void {
    this.callbacks.onTerminalMode?.(terminalModeOf(flags));
  }

  /** A process of this run waits for stdin (the worker's stdin-wanted event). */
  stdinWanted(): void {
    this.callbacks.onStdinWanted?.();
  }

  add(stream: 'stdout' | 'stderr', bytes: Uint8Array): void {
    const limit = stream === 'stdout' ? this.limits.stdoutBytes : this.limits.stderrBytes;
    const room = limit - this.sizes[stream];
    if (room <= 0) {
      this.truncated[stream] = true;
      return;
    }
    const kept = bytes.length > room ? bytes.subarray(0, room) : bytes;
    if (kept.length < bytes.length) this.truncated[stream] = true;
    this.chunks[stream].push(kept);
    this.sizes[stream] += kept.length;
    const callback = stream === 'stdout' ? this.callbacks.onStdout : this.callbacks.onStderr;
    if (callback !== undefined) callback(this.decoders[stream].decode(kept, { stream: true }), kept);
  }

  bytes(stream: 'stdout' | 'stderr'): Uint8Array {
    const out = new Uint8Array(this.sizes[stream]);
    let offset = 0;
    for (const chunk of this.chunks[stream]) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }
}
