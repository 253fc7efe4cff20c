// `airlock audit verify` on a log of 1,000,000 events (≈250 MB, written by the real writer):
// it holds end to end, and one changed byte near the end is found and named.

import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { ChainLog } from '../../host/audit/chain-log.js';
import { main } from '../main.js';

const EVENTS = 1_000_000;
let dir: string | undefined;

afterAll(async () => {
  vi.restoreAllMocks();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

it('verifies a 1,000,000-event log and names a changed line near its end', { timeout: 900_000 }, async () => {
  dir = await mkdtemp(join(tmpdir(), 'airlock-million-'));
  const path = join(dir, 'audit.jsonl');
  const log = await ChainLog.open(path);
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < EVENTS; i++) {
    const time = new Date(start + i).toISOString();
    log.append(
      i % 3 === 0
        ? { v: 1, type: 'tool.refused', sessionId: `sb-${(i % 97).toString(16).padStart(16, '0')}`, seq: i, time, source: 'sandbox-reported', runId: i, tool: 'curl' }
        : { v: 1, type: 'run.ended', sessionId: `sb-${(i % 97).toString(16).padStart(16, '0')}`, seq: i, time, source: 'host', runId: i, exitCode: i % 2, durationMs: 1.5, errorClass: null, outputTruncated: false },
    );
    if (i % 50_000 === 49_999) await log.flush();
  }
  await log.close();

  const out: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  expect(await main(['audit', 'verify', path])).toBe(0);
  expect(out.join('')).toContain(`ok: ${EVENTS + 1} lines (n=0…${EVENTS}) in 1 file`);

  // Flip one digit of an event 10 lines before the end.
  const handle = await open(path, 'r+');
  const size = (await handle.stat()).size;
  const tail = Buffer.alloc(8192);
  await handle.read(tail, 0, tail.length, size - tail.length);
  let newlines = 0;
  let at = tail.length - 1;
  while (newlines < 11) if (tail[--at] === 0x0a) newlines++;
  const target = tail.indexOf('"seq":', at) + 6;
  await handle.write(Buffer.from([tail[target] === 0x31 ? 0x32 : 0x31]), 0, 1, size - tail.length + target);
  await handle.close();
  out.length = 0;
  expect(await main(['audit', 'verify', path])).toBe(1);
  expect(out.join('')).toContain(`FAILED: ${path}:${EVENTS - 9}: the hash does not match the line's content: line n=${EVENTS - 10} was edited`);
});
