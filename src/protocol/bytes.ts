// Byte helpers both sides of the channel use.

/** `parts` joined into one array (`size`, their total length, when the caller counted it). */
export function concatBytes(parts: readonly Uint8Array[], size = parts.reduce((sum, part) => sum + part.length, 0)): Uint8Array {
  const all = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}
