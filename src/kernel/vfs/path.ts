// Path strings and the bytes they come from. Names in the VFS are JS strings; bytes that
// are not valid UTF-8 are kept as lone surrogates U+DC80..U+DCFF (Python's
// "surrogateescape"), so any byte string a program uses as a name round-trips exactly.

const strictDecoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** Decodes a path or name from process memory without losing any byte. */
export function decodePathBytes(bytes: Uint8Array): string {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return decodeWithEscapes(bytes);
  }
}

function decodeWithEscapes(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const length = utf8SequenceLength(bytes, i);
    if (length > 0) {
      out += strictDecoder.decode(bytes.subarray(i, i + length));
      i += length;
    } else {
      out += String.fromCharCode(0xdc00 + (bytes[i] as number));
      i += 1;
    }
  }
  return out;
}

/** Length of the valid UTF-8 sequence starting at `i`, or 0 when it is not valid. */
function utf8SequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] as number;
  let length: number;
  if (b0 < 0x80) return 1;
  else if (b0 >= 0xc2 && b0 <= 0xdf) length = 2;
  else if (b0 >= 0xe0 && b0 <= 0xef) length = 3;
  else if (b0 >= 0xf0 && b0 <= 0xf4) length = 4;
  else return 0;
  if (i + length > bytes.length) return 0;
  try {
    strictDecoder.decode(bytes.subarray(i, i + length));
    return length;
  } catch {
    return 0;
  }
}

/** Encodes a name for process memory, turning escaped bytes back into themselves. */
export function encodePathString(text: string): Uint8Array {
  if (!/[\udc80-\udcff]/.test(text)) return encoder.encode(text);
  const parts: number[] = [];
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (ch.length === 1 && code >= 0xdc80 && code <= 0xdcff) parts.push(code - 0xdc00);
    else for (const b of encoder.encode(ch)) parts.push(b);
  }
  return Uint8Array.from(parts);
}

/** Splits a path into its non-empty components (`.` kept, so callers can see it). */
export function splitPath(path: string): string[] {
  return path.split('/').filter((part) => part.length > 0);
}

/**
 * Joins and normalizes an absolute path lexically: `.` dropped, `..` pops, never above
 * the root. Used for display paths (cwd, /proc), not for resolution, which walks inodes.
 */
export function normalizeAbsolute(path: string, base = '/'): string {
  const stack: string[] = [];
  const full = path.startsWith('/') ? path : `${base}/${path}`;
  for (const part of splitPath(full)) {
    if (part === '.') continue;
    if (part === '..') stack.pop();
    else stack.push(part);
  }
  return '/' + stack.join('/');
}

/** Whether `name` may be stored as a directory entry. */
export function isValidName(name: string): boolean {
  return name.length > 0 && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');
}

/** Longest name in bytes, as on Linux. */
export const NAME_MAX = 255;
/** Longest path in bytes, as on Linux. */
export const PATH_MAX = 4096;
