// How Python calls the kernel without holding a JS object: a character device in
// Emscripten's filesystem. Python opens it, writes one request, reads the answer and closes
// it — plain system calls carrying bytes, which pass the interpreter's seal
// (interpreter-seal.ts) like any file access. Pyodide's JS modules would have put a JsProxy
// (a JS function) in Python's hands, and from a JS function the realm is reachable.
//
// Wire format (the prelude's `call`, py/prelude.py, is the other side):
//   request: UTF-8 JSON, then optionally NUL and the payload bytes (JSON text has no NUL);
//   answer:  u32 LE length of the JSON, u32 LE length of the payload, the JSON, the payload.
// A device that is read before anything was written, or written twice, answers EINVAL.

import type { EmFS, EmStream } from './emscripten-types.js';

/** Where the device is (Pyodide's own directory, outside every kernel mount). */
export const KERNEL_DEVICE_PATH = '/lib/airlock-kernel';

/** An arbitrary device number that Emscripten does not use itself. */
const DEVICE_MAJOR = 64;

const EINVAL = 28;

/** Answers one request (bytes as described above) with its answer's JSON and payload. */
export type KernelDeviceServer = (json: string, payload: Uint8Array | undefined) => { json: string; payload?: Uint8Array };

interface Exchange {
  answer: Uint8Array | undefined;
  offset: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function frame(json: string, payload: Uint8Array | undefined): Uint8Array {
  const head = encoder.encode(json);
  const data = payload ?? new Uint8Array(0);
  const bytes = new Uint8Array(8 + head.length + data.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, head.length, true);
  view.setUint32(4, data.length, true);
  bytes.set(head, 8);
  bytes.set(data, 8 + head.length);
  return bytes;
}

/** Creates the device; `serve` answers each request. */
export function installKernelDevice(FS: EmFS, serve: KernelDeviceServer): void {
  const exchanges = new WeakMap<EmStream, Exchange>();
  const device = FS.makedev(DEVICE_MAJOR, 0);
  FS.registerDevice(device, {
    open(stream) {
      exchanges.set(stream, { answer: undefined, offset: 0 });
    },
    close(stream) {
      exchanges.delete(stream);
    },
    write(stream, buffer, offset, length) {
      const exchange = exchanges.get(stream);
      if (exchange === undefined || exchange.answer !== undefined) throw new FS.ErrnoError(EINVAL);
      // A view, whatever typed array the glue passes (the interpreter's HEAP8).
      const request = new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length);
      const split = request.indexOf(0);
      const json = decoder.decode(split < 0 ? request : request.subarray(0, split));
      // Copied: the request's bytes live in the interpreter's memory, which the call may grow.
      const payload = split < 0 ? undefined : request.slice(split + 1);
      const answer = serve(json, payload);
      exchange.answer = frame(answer.json, answer.payload);
      return length;
    },
    read(stream, buffer, offset, length) {
      const exchange = exchanges.get(stream);
      if (exchange?.answer === undefined) throw new FS.ErrnoError(EINVAL);
      const count = Math.min(length, exchange.answer.length - exchange.offset);
      buffer.set(exchange.answer.subarray(exchange.offset, exchange.offset + count), offset);
      exchange.offset += count;
      return count;
    },
  });
  FS.mkdev(KERNEL_DEVICE_PATH, 0o600, device);
}
