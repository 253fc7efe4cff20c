// Reading a byte stream whole with a ceiling (a network response, a decompressed archive):
// past `limit` bytes the stream is cancelled and the caller's error is thrown, so a hostile
// or huge stream never fills memory.

import { concatBytes } from '../protocol/bytes.js';

export async function readCapped(body: ReadableStream<Uint8Array> | undefined, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (body === undefined) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concatBytes(chunks, total);
}
