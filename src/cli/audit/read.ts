// `airlock audit tail [-f]` and `airlock audit query`: events back out of a log, as text
// (format.ts) or JSON lines.

import { open, stat } from 'node:fs/promises';
import type { AuditEvent } from '../../protocol/audit/schema.js';
import { chainFiles } from '../../host/audit/chain-files.js';
import { readEvents } from '../../host/audit/event-reader.js';
import { matchesFilter, type EventFilter } from '../../host/audit/filter.js';
import { formatEvent } from '../../host/audit/format.js';

const CHUNK = 64 * 1024;
const FOLLOW_POLL_MS = 250;
const decoder = new TextDecoder();

function print(event: AuditEvent, json: boolean): void {
  process.stdout.write(`${json ? JSON.stringify(event) : formatEvent(event)}\n`);
}

function eventOf(line: string): AuditEvent | undefined {
  try {
    const entry = JSON.parse(line) as { event?: unknown };
    return typeof entry.event === 'object' && entry.event !== null ? (entry.event as AuditEvent) : undefined;
  } catch {
    return undefined;
  }
}

/** The last `count` events matching `filter`, reading the files backwards from the newest. */
async function lastEvents(files: string[], count: number, filter: EventFilter): Promise<AuditEvent[]> {
  const found: AuditEvent[] = [];
  const consider = (line: Uint8Array): void => {
    const event = eventOf(decoder.decode(line));
    if (event !== undefined && matchesFilter(event, filter)) found.push(event);
  };
  for (const file of [...files].reverse()) {
    if (found.length >= count) break;
    const handle = await open(file, 'r').catch(() => undefined);
    if (handle === undefined) continue;
    try {
      let end = (await handle.stat()).size;
      // The start of a line whose beginning is in an earlier chunk (with its newline).
      let carry = new Uint8Array(0);
      let newest = true;
      while (end > 0 && found.length < count) {
        const start = Math.max(0, end - CHUNK);
        const buffer = new Uint8Array(end - start + carry.length);
        await handle.read(buffer, 0, end - start, start);
        buffer.set(carry, end - start);
        // In the newest chunk, bytes after the last newline are a torn line: not an event.
        let lineEnd = newest ? buffer.lastIndexOf(0x0a) : buffer.length - 1;
        newest = false;
        while (lineEnd >= 0 && found.length < count) {
          const previous = lineEnd === 0 ? -1 : buffer.lastIndexOf(0x0a, lineEnd - 1);
          if (previous < 0 && start > 0) break;
          consider(buffer.subarray(previous + 1, lineEnd));
          lineEnd = previous;
        }
        carry = buffer.slice(0, lineEnd + 1);
        end = start;
      }
    } finally {
      await handle.close();
    }
  }
  return found.reverse();
}

/** Prints lines appended to `file` from `offset` on, until `signal` aborts; follows rotation. */
async function follow(file: string, offset: number, json: boolean, filter: EventFilter, signal: AbortSignal): Promise<void> {
  let position = offset;
  let identity = (await stat(file).catch(() => undefined))?.ino;
  let carry = '';
  while (!signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
    const info = await stat(file).catch(() => undefined);
    if (info === undefined) continue;
    if (info.ino !== identity || info.size < position) {
      // Rotated: FILE is a new file; read it from its start.
      identity = info.ino;
      position = 0;
      carry = '';
    }
    if (info.size === position) continue;
    const handle = await open(file, 'r');
    try {
      const bytes = new Uint8Array(info.size - position);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, position);
      position += bytesRead;
      const text = carry + decoder.decode(bytes.subarray(0, bytesRead));
      const lines = text.split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) {
        const event = eventOf(line);
        if (event !== undefined && matchesFilter(event, filter)) print(event, json);
      }
    } finally {
      await handle.close();
    }
  }
}

export async function tailCommand(command: { file: string; follow: boolean; lines: number; json: boolean; filter: EventFilter }, signal: AbortSignal): Promise<number> {
  const files = await chainFiles(command.file);
  const size = (await stat(command.file).catch(() => undefined))?.size;
  if (size === undefined && !command.follow) {
    process.stderr.write(`airlock audit tail: ${command.file}: no such file\n`);
    return 1;
  }
  for (const event of await lastEvents(files, command.lines, command.filter)) print(event, command.json);
  if (command.follow) await follow(command.file, size ?? 0, command.json, command.filter, signal);
  return 0;
}

export async function queryCommand(command: { files: string[]; json: boolean; limit?: number; filter: EventFilter }): Promise<number> {
  let printed = 0;
  for (const file of command.files) {
    if ((await stat(file).catch(() => undefined)) === undefined) {
      process.stderr.write(`airlock audit query: ${file}: no such file\n`);
      return 1;
    }
    for await (const { event } of readEvents(await chainFiles(file), command.filter)) {
      print(event, command.json);
      if (command.limit !== undefined && ++printed >= command.limit) return 0;
    }
  }
  return 0;
}
