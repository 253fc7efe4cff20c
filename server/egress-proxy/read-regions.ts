// Reading a socket into successive regions of large buffers (Node's `onread` option) instead
// of a fresh 64 KiB buffer per read: a read takes whatever the socket holds, up to the rest of
// the buffer, so a MiB arrives in a few reads and a few allocations rather than sixteen.

/**
 * The size of each read buffer. A region is never read into twice — chunks handed on may still
 * be waiting to be written — so a full buffer is replaced, not reused; the old one goes when
 * its chunks do.
 */
const READ_BUFFER_BYTES = 256 * 1024;
/** A region smaller than this is not worth a read: the next read goes into a new buffer. */
const READ_REGION_MIN = 64 * 1024;

/** `onread` options (net.connect, tls.connect) that read into successive regions of large buffers; `onChunk` returns whether to read on. */
export function regionReads(onChunk: (chunk: Buffer) => boolean): { buffer: () => Buffer; callback: (bytes: number, region: Buffer) => boolean } {
  let buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  let used = 0;
  return {
    buffer: () => {
      if (buffer.length - used < READ_REGION_MIN) {
        buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
        used = 0;
      }
      return buffer.subarray(used);
    },
    callback: (bytes, region) => {
      used += bytes;
      return onChunk(region.subarray(0, bytes));
    },
  };
}
