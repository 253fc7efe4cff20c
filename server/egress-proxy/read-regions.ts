// Reading a socket into successive regions of large buffers (Node's `onread` option) instead
// of a fresh 64 KiB buffer per read: a read takes whatever the socket holds, up to the rest of
// the buffer, so a MiB arrives in one or two reads rather than sixteen.
//
// A full buffer is read into again only once every byte handed on from it has been written
// out (`retain` when a chunk is handed on, `release` when its write is done). New buffers are
// memory V8 counts against the heap: allocating one per 256 KiB relayed started a full
// garbage collection every few dozen MiB, a quarter of the proxy's CPU on terminated TLS
// (perf). A chunk never released (a relay cut short, a scrubbed body) only keeps its buffer
// from coming back; the garbage collector takes it when the chunk goes.
//
// The buffers are 1 MiB: a plain TCP upstream's MiB then arrives in one or two reads and goes
// on in as many writes (at 256 KiB it took five of each, and on loopback each write also runs
// the reader's side of TCP), and a TLS upstream's records are joined into fewer, larger
// writes. Measured with the gateway bench, old and new alternating: about a quarter less proxy
// CPU per MiB on plain HTTP (docs/network.md). A socket keeps its current buffer and at most
// one free one (a kept-alive upstream connection waits idle at most 4 s, then both go). Freeing
// them each time a connection went idle cost more than it saved: the next response allocated
// them again, the allocations the reuse is there to avoid.

/** The size of each read buffer. */
export const READ_BUFFER_BYTES = 1024 * 1024;
/** A region smaller than this is not worth a read: the next read goes into another buffer. */
export const READ_REGION_MIN = 64 * 1024;
/** Buffers kept free for reuse per socket. */
const FREE_BUFFERS = 1;

export interface RegionReads {
  /** The `onread` option for net.connect or tls.connect. */
  onread: { buffer: () => Buffer; callback: (bytes: number, region: Buffer) => boolean };
  /** `chunk` (a view of a read buffer) has been handed on: its bytes are not read into again until released. */
  retain(chunk: Buffer): void;
  /** `chunk`'s bytes (retained before, possibly as several chunks) have been written out. */
  release(chunk: Buffer): void;
}

/** Reads into regions of large buffers; `onChunk` gets each read and returns whether to read on. */
export function regionReads(onChunk: (chunk: Buffer) => boolean): RegionReads {
  let buffer: Buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  let used = 0;
  /** Bytes handed on and not yet written out, per buffer. */
  const outstanding = new WeakMap<ArrayBufferLike, number>();
  /** Full buffers still waiting for their bytes to be written out. */
  const retired = new WeakSet<ArrayBufferLike>();
  const free: Buffer[] = [];

  // (A buffer this large is an ArrayBuffer of its own, never a slice of Node's pool.)
  const next = (): Buffer => free.pop() ?? Buffer.allocUnsafe(READ_BUFFER_BYTES);
  const retire = (full: Buffer): void => {
    if ((outstanding.get(full.buffer) ?? 0) === 0) {
      if (free.length < FREE_BUFFERS) free.push(full);
    } else retired.add(full.buffer);
  };

  return {
    onread: {
      buffer: () => {
        if (buffer.length - used < READ_REGION_MIN) {
          retire(buffer);
          buffer = next();
          used = 0;
        }
        return buffer.subarray(used);
      },
      callback: (bytes, region) => {
        used += bytes;
        return onChunk(region.subarray(0, bytes));
      },
    },
    retain(chunk) {
      outstanding.set(chunk.buffer, (outstanding.get(chunk.buffer) ?? 0) + chunk.length);
    },
    release(chunk) {
      const left = (outstanding.get(chunk.buffer) ?? 0) - chunk.length;
      outstanding.set(chunk.buffer, Math.max(0, left));
      if (left > 0 || !retired.has(chunk.buffer)) return;
      retired.delete(chunk.buffer);
      if (free.length < FREE_BUFFERS) free.push(Buffer.from(chunk.buffer, 0, READ_BUFFER_BYTES));
    },
  };
}
