// One line of a hash chain (docs/audit.md, "The chain format"):
//
//   {"n":<position>,"prev":"<hash of line n-1>","event":<JSON object>,"hash":"<hash>"}\n
//
// `hash` is BLAKE3-256, in lowercase hex, of the line's bytes before `,"hash":"` — that is,
// of `{"n":…,"prev":"…","event":{…}`. `prev` of the first line (n = 0) is 64 zeros. `n`
// counts lines from 0 across all files of the chain (rotation continues it). The layout is
// fixed so a verifier can cut a line without a JSON parser and hash a slice of the bytes it
// read, and so a third party can check the chain with any BLAKE3 and JSON library.

import { hashInto } from './hash.js';

export const GENESIS_PREV = '0'.repeat(64);
/** The longest line a chain accepts (an audit event is far shorter: its fields are bounded). */
export const CHAIN_LINE_MAX_BYTES = 1024 * 1024;

const HASH_SUFFIX = ',"hash":"';
/** `,"hash":"` + 64 hex digits + `"}`. */
const SUFFIX_BYTES = HASH_SUFFIX.length + 64 + 2;
const N_PREFIX = '{"n":';
const PREV_PREFIX = ',"prev":"';
const EVENT_PREFIX = '","event":';

/** Where the chain stands: the position of the next line and the hash it must name as prev. */
export interface ChainHead {
  next: number;
  prev: string;
}

const encoder = new TextEncoder();
const utf8 = new TextDecoder();
const ASCII = new TextDecoder('latin1');

const N_PREFIX_BYTES = encoder.encode(N_PREFIX);
const PREV_PREFIX_BYTES = encoder.encode(PREV_PREFIX);
const EVENT_PREFIX_BYTES = encoder.encode(EVENT_PREFIX);
const HASH_SUFFIX_BYTES = encoder.encode(HASH_SUFFIX);
/** A line's bytes besides its event: the prefixes, n (≤ 16 digits), prev, the suffix, the newline. */
const FRAME_BYTES = N_PREFIX.length + 16 + PREV_PREFIX.length + 64 + EVENT_PREFIX.length + SUFFIX_BYTES + 1;
/** The lowercase hex digit (as a byte) of each nibble. */
const HEX_DIGIT = encoder.encode('0123456789abcdef');

/**
 * Lines being appended, as UTF-8 bytes in one growing buffer: a line is written in place
 * piece by piece (no per-line string is built), hashed where it lies, its hash written as
 * hex digits straight into it, and the batch written from there. The hash of the last line
 * is kept as bytes, so the next line's `prev` is a copy, not a re-encoding. Measured
 * (docs/audit.md, Figures): building the line as a string and encoding it cost more than
 * the hashing.
 */
export class LineBuffer {
  private bytes = new Uint8Array(64 * 1024);
  length = 0;
  /** The digest of the last line appended, reused for every line. */
  private readonly digest = new Uint8Array(32);
  /** The last line's hash as the string returned, and where its 64 hex digits are. */
  private lastHash = '';
  /** Offset of the last hash's digits in `bytes`, or -1 after take() (then in lastHashDigits). */
  private lastHashAt = -1;
  private readonly lastHashDigits = new Uint8Array(64);

  /** Appends the line at `head` carrying `eventJson` (a JSON object without newlines); returns its hash. */
  append(head: ChainHead, eventJson: string): string {
    // A UTF-16 code unit never takes more than 3 UTF-8 bytes.
    this.reserve(eventJson.length * 3 + head.prev.length * 3 + FRAME_BYTES);
    const bytes = this.bytes;
    const start = this.length;
    let at = start;
    bytes.set(N_PREFIX_BYTES, at);
    at = writeDecimal(bytes, at + N_PREFIX_BYTES.length, head.next);
    bytes.set(PREV_PREFIX_BYTES, at);
    at += PREV_PREFIX_BYTES.length;
    if (head.prev === this.lastHash) {
      if (this.lastHashAt >= 0) bytes.copyWithin(at, this.lastHashAt, this.lastHashAt + 64);
      else bytes.set(this.lastHashDigits, at);
      at += 64;
    } else {
      at += encoder.encodeInto(head.prev, bytes.subarray(at)).written;
    }
    bytes.set(EVENT_PREFIX_BYTES, at);
    at += EVENT_PREFIX_BYTES.length;
    at += encoder.encodeInto(eventJson, bytes.subarray(at)).written;
    hashInto(bytes.subarray(start, at), this.digest);
    bytes.set(HASH_SUFFIX_BYTES, at);
    at += HASH_SUFFIX_BYTES.length;
    const hashAt = at;
    const digest = this.digest;
    for (let i = 0; i < 32; i++) {
      const byte = digest[i] as number;
      bytes[at++] = HEX_DIGIT[byte >> 4] as number;
      bytes[at++] = HEX_DIGIT[byte & 15] as number;
    }
    bytes[at++] = 0x22; // "
    bytes[at++] = 0x7d; // }
    bytes[at++] = 0x0a; // \n
    this.length = at;
    this.lastHashAt = hashAt;
    this.lastHash = ASCII.decode(bytes.subarray(hashAt, hashAt + 64));
    return this.lastHash;
  }

  /** The bytes appended since the last take(), and a fresh start. */
  take(): Uint8Array {
    const taken = this.bytes.slice(0, this.length);
    this.keepLastHash();
    this.length = 0;
    return taken;
  }

  /** Copies the last hash's digits out of the buffer before its bytes are reused. */
  private keepLastHash(): void {
    if (this.lastHashAt < 0) return;
    this.lastHashDigits.set(this.bytes.subarray(this.lastHashAt, this.lastHashAt + 64));
    this.lastHashAt = -1;
  }

  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

/** Writes `value` (a non-negative safe integer) in decimal at `at`; returns the end. */
function writeDecimal(bytes: Uint8Array, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = value;
  for (let i = at + digits - 1; i >= at; i--) {
    bytes[i] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}

/** Formats the line at `head` carrying `eventJson` (a JSON object without newlines). */
export function formatLine(head: ChainHead, eventJson: string): { text: string; hash: string } {
  const buffer = new LineBuffer();
  const hash = buffer.append(head, eventJson);
  return { text: utf8.decode(buffer.take()), hash };
}

export interface ParsedLine {
  n: number;
  /** Offsets of the 64 hex digits of `prev` and of `hash` within the line. */
  prevAt: number;
  hashAt: number;
  /** The line's bytes the hash covers. */
  body: Uint8Array;
  /** Offsets of the event JSON within the line. */
  eventStart: number;
  eventEnd: number;
}

/** Value of each hex digit byte (lowercase), -1 for any other byte. */
const HEX_VALUE = new Int8Array(256).fill(-1);
for (let digit = 0; digit < 16; digit++) HEX_VALUE['0123456789abcdef'.charCodeAt(digit)] = digit;

/** The 64 hex digits at `at` as a string. */
export function hexAt(line: Uint8Array, at: number): string {
  return ASCII.decode(line.subarray(at, at + 64));
}

/** Whether the 64 hex digits at `at` spell `digest` (32 bytes), without making strings. */
export function hexEquals(line: Uint8Array, at: number, digest: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) {
    if (((HEX_VALUE[line[at + 2 * i] as number] as number) << 4) + (HEX_VALUE[line[at + 2 * i + 1] as number] as number) !== digest[i]) return false;
  }
  return true;
}

function matches(bytes: Uint8Array, at: number, text: string): boolean {
  if (at < 0 || at + text.length > bytes.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

function isHex(bytes: Uint8Array, at: number, length: number): boolean {
  for (let i = at; i < at + length; i++) if (HEX_VALUE[bytes[i] as number] === -1) return false;
  return true;
}

/**
 * Cuts a line (without its newline) into its parts, or says which part is malformed. Does
 * not check the hash: the verifier does, so that it can tell an edit from a bad layout.
 */
export function parseLine(line: Uint8Array): ParsedLine | { error: string } {
  if (line.length > CHAIN_LINE_MAX_BYTES) return { error: `longer than ${CHAIN_LINE_MAX_BYTES} bytes` };
  if (!matches(line, 0, N_PREFIX)) return { error: 'does not start with {"n":' };
  let at = N_PREFIX.length;
  let n = 0;
  const digitsStart = at;
  while (at < line.length && (line[at] as number) >= 0x30 && (line[at] as number) <= 0x39 && at - digitsStart < 16) {
    n = n * 10 + ((line[at] as number) - 0x30);
    at++;
  }
  if (at === digitsStart || (line[digitsStart] === 0x30 && at - digitsStart > 1) || !Number.isSafeInteger(n)) return { error: 'n is not a line position' };
  if (!matches(line, at, PREV_PREFIX)) return { error: 'no "prev" after "n"' };
  at += PREV_PREFIX.length;
  if (!isHex(line, at, 64)) return { error: 'prev is not 64 lowercase hex digits' };
  const prevAt = at;
  at += 64;
  if (!matches(line, at, EVENT_PREFIX)) return { error: 'no "event" after "prev"' };
  const eventStart = at + EVENT_PREFIX.length;
  const bodyEnd = line.length - SUFFIX_BYTES;
  if (bodyEnd <= eventStart || !matches(line, bodyEnd, HASH_SUFFIX) || line[line.length - 2] !== 0x22 || line[line.length - 1] !== 0x7d) {
    return { error: 'does not end with ,"hash":"<64 hex digits>"}' };
  }
  if (!isHex(line, bodyEnd + HASH_SUFFIX.length, 64)) return { error: 'hash is not 64 lowercase hex digits' };
  if (line[eventStart] !== 0x7b || line[bodyEnd - 1] !== 0x7d) return { error: 'event is not a JSON object' };
  return { n, prevAt, hashAt: bodyEnd + HASH_SUFFIX.length, body: line.subarray(0, bodyEnd), eventStart, eventEnd: bodyEnd };
}
