// Where a chain's files are on disk, and reading the ends of them. A chain written to FILE
// rotates into FILE.1, FILE.2, … (oldest first; FILE is always the newest), its signed
// checkpoints go to FILE.checkpoints, and FILE.lock marks the one writer.

import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CHAIN_LINE_MAX_BYTES, hexAt, parseLine, type ChainHead } from './chain-line.js';
import { blake3Hex } from './hash.js';

export function checkpointsPath(path: string): string {
  return `${path}.checkpoints`;
}

export function lockPath(path: string): string {
  return `${path}.lock`;
}

/** The rotated segments of the chain written to `path`, oldest first, as [number, path]. */
export async function listSegments(path: string): Promise<Array<{ segment: number; path: string }>> {
  const dir = dirname(path);
  const base = basename(path);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const segments: Array<{ segment: number; path: string }> = [];
  for (const name of names) {
    if (!name.startsWith(`${base}.`)) continue;
    const suffix = name.slice(base.length + 1);
    if (/^[1-9]\d*$/.test(suffix)) segments.push({ segment: Number(suffix), path: join(dir, name) });
  }
  return segments.sort((a, b) => a.segment - b.segment);
}

/** All files of the chain written to `path`, in chain order (the segments, then `path`). */
export async function chainFiles(path: string): Promise<string[]> {
  return [...(await listSegments(path)).map((s) => s.path), path];
}

export async function fileSize(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export interface FileTail {
  /** Bytes after the last newline (a torn line), if any. */
  tornBytes: Uint8Array;
  /** Offset where the torn bytes start (the length the file should have). */
  goodLength: number;
  /** The last complete line, if any, and where the chain stands after it. */
  head: ChainHead | undefined;
  /** 1-based number of the torn line (lines before it + 1), when counted; else undefined. */
  lastLine: Uint8Array | undefined;
}

/** Reads the end of a chain file: its last complete line and any torn bytes after it. */
export async function readTail(path: string): Promise<FileTail> {
  const size = (await fileSize(path)) ?? 0;
  const handle = await open(path, 'r').catch(() => undefined);
  if (handle === undefined || size === 0) {
    await handle?.close();
    return { tornBytes: new Uint8Array(0), goodLength: 0, head: undefined, lastLine: undefined };
  }
  try {
    // A line is at most CHAIN_LINE_MAX_BYTES, so the last line and any torn bytes after it
    // fit in twice that.
    const length = Math.min(size, 2 * CHAIN_LINE_MAX_BYTES + 2);
    const buffer = new Uint8Array(length);
    await handle.read(buffer, 0, length, size - length);
    const lastNewline = buffer.lastIndexOf(0x0a);
    const goodLength = lastNewline < 0 ? size - length : size - length + lastNewline + 1;
    const tornBytes = buffer.slice(lastNewline + 1);
    if (lastNewline < 0) return { tornBytes, goodLength, head: undefined, lastLine: undefined };
    const previousNewline = buffer.lastIndexOf(0x0a, lastNewline - 1);
    const lastLine = buffer.slice(previousNewline + 1, lastNewline);
    const parsed = parseLine(lastLine);
    const head = 'error' in parsed || blake3Hex(parsed.body) !== hexAt(lastLine, parsed.hashAt) ? undefined : { next: parsed.n + 1, prev: hexAt(lastLine, parsed.hashAt) };
    return { tornBytes, goodLength, head, lastLine };
  } finally {
    await handle.close();
  }
}

/** The chainId named by a chain's first line (audit.chain_started / audit.segment_started). */
export function chainIdOf(line: Uint8Array | undefined): string | undefined {
  if (line === undefined) return undefined;
  const parsed = parseLine(line);
  if ('error' in parsed) return undefined;
  try {
    const event = JSON.parse(new TextDecoder().decode(line.subarray(parsed.eventStart, parsed.eventEnd))) as { chainId?: unknown };
    return typeof event.chainId === 'string' ? event.chainId : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the first line of a chain file (up to its newline), or undefined when it has none. */
export async function readFirstLine(path: string): Promise<Uint8Array | undefined> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const buffer = new Uint8Array(Math.min(CHAIN_LINE_MAX_BYTES + 1, (await handle.stat()).size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, bytesRead).indexOf(0x0a);
    return end < 0 ? undefined : buffer.slice(0, end);
  } finally {
    await handle.close();
  }
}
