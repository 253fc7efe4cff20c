// BLAKE3, the audit chain's hash (and the hash of run commands in events). The one place
// that names the implementation: blake3-jit, chosen by measurement (docs/audit.md: on
// 266-byte lines it hashed ≈10× faster than @noble/hashes and ≈1.3× faster than hash-wasm
// here, and it is synchronous, so appending needs no async set-up).

import { hashInto as hashIntoImpl } from 'blake3-jit';

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const encoder = new TextEncoder();
const digest = new Uint8Array(32);
/** Reused for the UTF-8 of strings to hash (encodeInto is several times cheaper than encode). */
let scratch = new Uint8Array(4096);

function utf8(text: string): Uint8Array {
  // A UTF-16 code unit never takes more than 3 UTF-8 bytes.
  if (text.length * 3 > scratch.length) scratch = new Uint8Array(Math.max(text.length * 3, scratch.length * 2));
  const { written } = encoder.encodeInto(text, scratch);
  return scratch.subarray(0, written);
}

/** Lowercase hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i] as number];
  return out;
}

/** BLAKE3-256 of `data` (a string is hashed as its UTF-8 bytes), as 64 lowercase hex digits. */
export function blake3Hex(data: Uint8Array | string): string {
  hashIntoImpl(typeof data === 'string' ? utf8(data) : data, digest);
  return toHex(digest);
}

/** A 4-aligned copy of short unaligned input (see hashInto). */
const aligned = new Uint8Array(4096);

/** BLAKE3-256 of `data` into `out` (32 bytes). */
export function hashInto(data: Uint8Array, out: Uint8Array): void {
  // blake3-jit reads 4-aligned input as words in place and other input byte by byte; a
  // chain line starts wherever the one before it ended, and copying it to an aligned
  // scratch first hashes it ≈10 % faster (measured on 290-byte lines).
  if ((data.byteOffset & 3) !== 0 && data.length <= aligned.length) {
    aligned.set(data);
    hashIntoImpl(aligned.subarray(0, data.length), out);
    return;
  }
  hashIntoImpl(data, out);
}

/** BLAKE3-256 of `data` as 32 bytes (a new array). */
export function blake3Bytes(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  hashIntoImpl(data, out);
  return out;
}
