// One line of a hash chain (docs/audit.md, "The chain format"):
//
//   {"n":<position>,"prev":"<hash of line n-1>","event":<JSON object>,"hash":"<hash>"}\n
//
// `hash` is BLAKE3-256, in lowercase hex, of the line's bytes before `,"hash":"` — that is,
// of `{"n":…,"prev":"…","event":{…}`. `prev` of the first line (n = 0) is 64 zeros. `n`
// counts lines from 0 across all files of the chain (rotation continues it). The layout is
// fixed so a verifier can cut a line without a JSON parser and hash a slice of the bytes it
// read, and so a third party can check the chain with any BLAKE3 and JSON library.

import { blake3Hex } from './hash.js';

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

/**
 * Lines being appended, as UTF-8 bytes in one growing buffer: a line is encoded once,
 * hashed where it lies, and written from there (no per-line strings kept alive until the
 * write, which under load cost more than the hashing).
 */
export class LineBuffer {
  private bytes = new Uint8Array(64 * 1024);
  length = 0;

  /** Appends the line at `head` carrying `eventJson` (a JSON object without newlines); returns its hash. */
  append(head: ChainHead, eventJson: string): string {
    const body = `${N_PREFIX}${head.next}${PREV_PREFIX}${head.prev}${EVENT_PREFIX}${eventJson}`;
    this.reserve(body.length * 3 + SUFFIX_BYTES + 1);
    const start = this.length;
    const { written } = encoder.encodeInto(body, this.bytes.subarray(start));
    const hash = blake3Hex(this.bytes.subarray(start, start + written));
    const suffix = encoder.encodeInto(`${HASH_SUFFIX}${hash}"}\n`, this.bytes.subarray(start + written));
    this.length = start + written + suffix.written;
    return hash;
  }

  /** The bytes appended since the last take(), and a fresh start. */
  take(): Uint8Array {
    const taken = this.bytes.slice(0, this.length);
    this.length = 0;
    return taken;
  }

  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
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

const ASCII = new TextDecoder('latin1');
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
