// Typed access to a process's linear memory. Views are rebuilt when the memory has grown
// (growing detaches the old ArrayBuffer).

import { Errno, fail } from '../../errno.js';
import { decodePathBytes } from '../../vfs/path.js';

export class ProcessMemory {
  private buffer: ArrayBuffer | undefined;
  private dataView: DataView | undefined;
  private bytes: Uint8Array | undefined;

  constructor(private readonly memory: WebAssembly.Memory) {}

  private refresh(): void {
    if (this.buffer !== this.memory.buffer) {
      this.buffer = this.memory.buffer;
      this.dataView = new DataView(this.buffer);
      this.bytes = new Uint8Array(this.buffer);
    }
  }

  view(): DataView {
    this.refresh();
    return this.dataView as DataView;
  }

  u8(): Uint8Array {
    this.refresh();
    return this.bytes as Uint8Array;
  }

  /** A view of `length` bytes at `ptr` (not a copy), EFAULT when out of bounds. */
  slice(ptr: number, length: number): Uint8Array {
    const bytes = this.u8();
    if (ptr < 0 || length < 0 || ptr + length > bytes.length) fail(Errno.FAULT, 'bad address');
    return bytes.subarray(ptr, ptr + length);
  }

  readString(ptr: number, length: number): string {
    const bytes = this.slice(ptr, length);
    // Browsers' TextDecoder refuses views of shared memory (a foreign program's, in the
    // playground): decode a copy of those.
    return decodePathBytes(bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice());
  }

  setU32(ptr: number, value: number): void {
    this.view().setUint32(ptr, value, true);
  }

  setU64(ptr: number, value: bigint): void {
    this.view().setBigUint64(ptr, value, true);
  }

  getU32(ptr: number): number {
    return this.view().getUint32(ptr, true);
  }

  /** Reads an array of (ptr, len) pairs: WASI iovecs and ciovecs. */
  iovecs(ptr: number, count: number): Array<[number, number]> {
    const view = this.view();
    const out: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) out.push([view.getUint32(ptr + i * 8, true), view.getUint32(ptr + i * 8 + 4, true)]);
    return out;
  }
}
