// Reuse of process memories. Every new instance needs a zeroed linear memory (an instance
// reused whole keeps its own: wasm-program.ts); allocating one per instance (a 1 MiB+
// backing store each) makes V8 run a full GC every few dozen processes ("external memory
// pressure"), which showed up as 5-20 ms stalls in the tail of process latency. Memories of exited processes that stayed small are kept for the next process of
// the same sandbox instead, and zeroed when they are taken again. Zeroing is what makes this
// safe: nothing a process left in memory is visible to the next one. It happens at take(),
// not at the process's exit, so that it is done while instances are made ahead
// (wasm-program.ts), off the path of a run.

/** A wasm page: the unit of linear memory sizes. */
export const WASM_PAGE = 65536;

/** Memories larger than this are not kept (zeroing them would cost more than a new one). */
const MAX_POOLED_BYTES = 8 * 1024 * 1024;
const MAX_POOLED = 16;

export class MemoryPool {
  private readonly free: Array<{ memory: WebAssembly.Memory; maxPages: number }> = [];

  /** A zeroed memory of at least `minPages` whose maximum is `maxPages`. */
  take(minPages: number, maxPages: number): WebAssembly.Memory {
    const index = this.free.findIndex((entry) => entry.maxPages === maxPages && entry.memory.buffer.byteLength >= minPages * WASM_PAGE);
    if (index >= 0) {
      const [entry] = this.free.splice(index, 1);
      if (entry !== undefined) {
        new Uint8Array(entry.memory.buffer).fill(0);
        return entry.memory;
      }
    }
    return new WebAssembly.Memory({ initial: minPages, maximum: maxPages });
  }

  /** Returns a memory whose process has exited (or that no process used). */
  give(memory: WebAssembly.Memory, maxPages: number): void {
    const bytes = memory.buffer.byteLength;
    if (bytes > MAX_POOLED_BYTES || this.free.length >= MAX_POOLED) return;
    this.free.push({ memory, maxPages });
  }
}
