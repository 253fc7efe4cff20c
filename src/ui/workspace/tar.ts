// A tar (POSIX ustar + pax long names) writer and reader, and gzip through the platform's
// CompressionStream: workspaces are downloaded and exported as .tar.gz built in the page.

import { readCapped } from '../../host/read-capped.js';
import { concatBytes } from '../../protocol/bytes.js';

export type TarKind = 'file' | 'dir' | 'symlink';

export interface TarEntry {
  /** Relative path, '/'-separated, without a trailing slash. */
  path: string;
  kind: TarKind;
  mode: number;
  mtimeMs: number;
  data?: Uint8Array;
  target?: string;
}

/** The archive is malformed (bad checksum, truncated, unsupported entry). */
export class TarFormatError extends Error {
  override readonly name = 'TarFormatError';
}

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function octal(value: number, width: number): string {
  return Math.max(0, Math.floor(value)).toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, kind: string, mode: number, size: number, mtimeMs: number, linkname = '', prefix = ''): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const put = (text: string | Uint8Array, offset: number, width: number): void => block.set((typeof text === 'string' ? encoder.encode(text) : text).subarray(0, width), offset);
  put(name, 0, 100);
  put(octal(mode & 0o7777, 8), 100, 8);
  put(octal(1000, 8), 108, 8);
  put(octal(1000, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(mtimeMs / 1000, 12), 136, 12);
  put('        ', 148, 8);
  put(kind, 156, 1);
  put(linkname, 157, 100);
  put('ustar\u000000', 257, 8);
  put('user', 265, 32);
  put('user', 297, 32);
  put(prefix, 345, 155);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
  return block;
}

function padded(data: Uint8Array): Uint8Array[] {
  const rest = data.length % BLOCK;
  return rest === 0 ? [data] : [data, new Uint8Array(BLOCK - rest)];
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = encoder.encode(body).length;
  length += String(length).length;
  if (String(length).length !== String(length - String(length).length).length) length += 1;
  return `${length}${body}`;
}

/** Splits a long path into ustar's prefix (≤155 bytes) and name (≤100 bytes), if possible. */
function splitUstar(path: string): { prefix: string; name: string } | undefined {
  if (encoder.encode(path).length <= 100) return { prefix: '', name: path };
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (encoder.encode(prefix).length <= 155 && encoder.encode(name).length <= 100) return { prefix, name };
  }
  return undefined;
}

export function writeTar(entries: readonly TarEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const path = entry.kind === 'dir' ? `${entry.path}/` : entry.path;
    const target = entry.target ?? '';
    let split = splitUstar(path);
    if (split === undefined || encoder.encode(target).length > 100) {
      const pax = encoder.encode(paxRecord('path', path) + (target.length > 0 ? paxRecord('linkpath', target) : ''));
      parts.push(header('PaxHeader', 'x', 0o644, pax.length, entry.mtimeMs), ...padded(pax));
      split = { prefix: '', name: path.slice(-100) };
    }
    const data = entry.kind === 'file' ? entry.data ?? new Uint8Array(0) : new Uint8Array(0);
    const type = entry.kind === 'file' ? '0' : entry.kind === 'dir' ? '5' : '2';
    parts.push(header(split.name, type, entry.mode, data.length, entry.mtimeMs, target.slice(0, 100), split.prefix));
    if (data.length > 0) parts.push(...padded(data));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  return concatBytes(parts);
}

function text(block: Uint8Array, offset: number, width: number): string {
  const slice = block.subarray(offset, offset + width);
  const end = slice.indexOf(0);
  return decoder.decode(end < 0 ? slice : slice.subarray(0, end));
}

function number(block: Uint8Array, offset: number, width: number): number {
  const value = text(block, offset, width).trim();
  return value === '' ? 0 : parseInt(value, 8);
}

function parsePax(data: Uint8Array): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of decoder.decode(data).split('\n')) {
    const match = /^\d+ ([^=]+)=(.*)$/.exec(line);
    if (match !== null) fields[match[1] as string] = match[2] as string;
  }
  return fields;
}

/** Reads an archive; entries of other kinds (devices, hard links) are a TarFormatError. */
export function readTar(archive: Uint8Array): TarEntry[] {
  // A short input is not an empty archive: every tar, even an empty one, is at least one
  // 512-byte block (GNU tar writes 10 KiB). Treating it as empty once replaced a workspace
  // with nothing.
  if (archive.length < BLOCK) throw new TarFormatError(`${archive.length} bytes is too short for a tar archive (at least 512)`);
  const entries: TarEntry[] = [];
  let offset = 0;
  let pax: Record<string, string> = {};
  while (offset + BLOCK <= archive.length) {
    const block = archive.subarray(offset, offset + BLOCK);
    if (block.every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 32 : (block[i] as number);
    if (sum !== number(block, 148, 8)) throw new TarFormatError(`bad header checksum at byte ${offset}`);
    const size = number(block, 124, 12);
    const type = text(block, 156, 1) || '0';
    const dataStart = offset + BLOCK;
    if (dataStart + size > archive.length) throw new TarFormatError('the archive is truncated');
    const data = archive.slice(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x') {
      pax = parsePax(data);
      continue;
    }
    if (type === 'g') continue;
    const prefix = text(block, 345, 155);
    const name = pax.path ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
    const kind: TarKind | undefined = type === '0' || type === '7' ? 'file' : type === '5' ? 'dir' : type === '2' ? 'symlink' : undefined;
    if (kind === undefined) throw new TarFormatError(`${name}: entries of type '${type}' are not supported (only files, directories and symlinks)`);
    const entry: TarEntry = { path: name.replace(/\/+$/, ''), kind, mode: number(block, 100, 8), mtimeMs: number(block, 136, 12) * 1000 };
    if (kind === 'file') entry.data = data;
    if (kind === 'symlink') entry.target = pax.linkpath ?? text(block, 157, 100);
    entries.push(entry);
    pax = {};
  }
  return entries;
}

async function through(data: Uint8Array, stream: TransformStream<Uint8Array, Uint8Array>): Promise<Uint8Array> {
  const output = new Blob([data as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(output).arrayBuffer());
}

export function gzip(data: Uint8Array): Promise<Uint8Array> {
  return through(data, new CompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>);
}

/**
 * Decompresses gzip data, refusing output past `maxBytes` as it streams (a small .gz can
 * expand to gigabytes). Throws TarFormatError for data that is not valid gzip.
 */
export async function gunzip(data: Uint8Array, maxBytes = Infinity): Promise<Uint8Array> {
  const stream = new Blob([data as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>);
  try {
    return await readCapped(stream, maxBytes, () => new ArchiveTooLargeError(maxBytes));
  } catch (error) {
    if (error instanceof ArchiveTooLargeError) throw error;
    throw new TarFormatError(`not valid gzip data (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** A compressed archive expands past what the sandbox could hold. */
export class ArchiveTooLargeError extends Error {
  override readonly name = 'ArchiveTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`it expands to more than ${maxBytes} bytes`);
  }
}

/** Whether `data` starts with the gzip magic number. */
export function isGzip(data: Uint8Array): boolean {
  return data[0] === 0x1f && data[1] === 0x8b;
}
