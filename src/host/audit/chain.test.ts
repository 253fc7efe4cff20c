// The hash chain on disk: tamper tests (edit, delete, reorder, truncate, splice, second
// writer, rewrite), rotation continuity, torn-line recovery and the head check.

import { appendFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditEventProblem, verifyAuditLog } from './audit-log.js';
import { GENESIS_PREV, LineBuffer, formatLine } from './chain-line.js';
import { ChainLog, ChainLogError } from './chain-log.js';
import { blake3Hex } from './hash.js';
import { generateSignerKey, parseSignerKey, parseVerifierKey } from './signed-note.js';

const signer = parseSignerKey(generateSignerKey('test-audit'));
const verifiers = [parseVerifierKey(signer.verifierKey)];
let dir: string;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'airlock-chain-'));
  path = join(dir, 'audit.jsonl');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function event(seq: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { v: 1, type: 'tool.refused', sessionId: 'sb-test', seq, time: new Date(Date.UTC(2026, 0, 1, 0, 0, seq % 60)).toISOString(), source: 'sandbox-reported', runId: 1, tool: `tool${seq}`, ...extra };
}

async function writeLog(count: number, options: Parameters<typeof ChainLog.open>[1] = {}): Promise<void> {
  const log = await ChainLog.open(path, { signer, ...options });
  for (let i = 0; i < count; i++) log.append(event(i));
  await log.close();
}

async function lines(file = path): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').slice(0, -1);
}

async function setLines(list: string[], file = path): Promise<void> {
  await writeFile(file, list.map((l) => `${l}\n`).join(''));
}

describe('the line layout', () => {
  // LineBuffer writes a line piece by piece into its buffer; this is the documented layout
  // built the plain way, for lines that follow each other (within a batch and across take()),
  // that start from a head it did not write, with large n, and with non-ASCII events.
  it('is exactly {"n":…,"prev":"…","event":…,"hash":"<BLAKE3 of what precedes it>"}', () => {
    const buffer = new LineBuffer();
    const expected: string[] = [];
    let written = '';
    let head = { next: 0, prev: GENESIS_PREV };
    const heads = [0, 1, 2, 9, 10, 11, 99, 12345, 12346, 2 ** 53 - 2];
    for (const [index, next] of heads.entries()) {
      // Most lines continue from the buffer's last hash; every third from a foreign head.
      if (index % 3 === 1) head = { next, prev: blake3Hex(`elsewhere ${index}`) };
      else head = { next, prev: head.prev };
      // A batch taken mid-way: the next line's prev comes from the hash kept aside.
      if (index === 3 || index === 8) written += new TextDecoder().decode(buffer.take());
      const eventJson = JSON.stringify({ ...event(index), tool: index % 3 === 0 ? `outil-é-${'€'.repeat(index)}-😀` : 'ls' });
      const body = `{"n":${head.next},"prev":"${head.prev}","event":${eventJson}`;
      const hash = buffer.append(head, eventJson);
      expect(hash).toBe(blake3Hex(body));
      expected.push(`${body},"hash":"${hash}"}\n`);
      head = { next: head.next + 1, prev: hash };
    }
    written += new TextDecoder().decode(buffer.take());
    expect(written).toBe(expected.join(''));
    expect(buffer.length).toBe(0);
  });

  it('refuses a line over 1 MiB (ETOOLONG) and chains the next one from the last good line', async () => {
    const log = await ChainLog.open(path, { signer });
    log.append(event(0));
    expect(() => log.append(event(1, { tool: 'x'.repeat(1024 * 1024) }))).toThrow(ChainLogError);
    expect(log.append(event(2)).n).toBe(2);
    await log.close();
    const report = await verifyAuditLog(path, { verifiers, schema: true });
    expect(report.problem).toBeUndefined();
    expect(report.lines).toBe(3);
  });
});

describe('a chain that holds', () => {
  it('verifies, with its signed checkpoints, and every event valid', async () => {
    await writeLog(50);
    const report = await verifyAuditLog(path, { verifiers, schema: true });
    expect(report.problem).toBeUndefined();
    expect(report.ok).toBe(true);
    expect(report.lines).toBe(51); // audit.chain_started + 50
    expect(report.checkpoints.checked).toBe(1);
    const first = JSON.parse((await lines())[0] as string) as { n: number; event: { type: string } };
    expect(first.n).toBe(0);
    expect(first.event.type).toBe('audit.chain_started');
  });

  it('continues the same chain when opened again', async () => {
    await writeLog(5);
    await writeLog(5);
    const report = await verifyAuditLog(path, { verifiers });
    expect(report.ok).toBe(true);
    expect(report.lines).toBe(11);
    expect(report.checkpoints.checked).toBe(2);
  });
});

describe('tampering is found, at the first broken line, with the reason', () => {
  beforeEach(async () => writeLog(20));

  it('an edited line', async () => {
    const list = await lines();
    list[6] = (list[6] as string).replace('"tool5"', '"tool6"');
    await setLines(list);
    const report = await verifyAuditLog(path, { verifiers });
    expect(report.problem).toMatchObject({ kind: 'edited', line: 7, file: path });
    expect(report.problem?.message).toContain('was edited');
  });

  it('an edited line whose hash was recomputed', async () => {
    const list = await lines();
    const parsed = JSON.parse(list[6] as string) as { n: number; prev: string; event: Record<string, unknown> };
    list[6] = formatLine({ next: parsed.n, prev: parsed.prev }, JSON.stringify({ ...parsed.event, tool: 'other' })).text.trimEnd();
    await setLines(list);
    const report = await verifyAuditLog(path, { verifiers });
    expect(report.problem).toMatchObject({ kind: 'relinked', line: 8 });
    expect(report.problem?.message).toContain('prev does not match the hash of line n=6');
  });

  it('a removed line', async () => {
    const list = await lines();
    list.splice(4, 1);
    await setLines(list);
    expect((await verifyAuditLog(path, { verifiers })).problem).toMatchObject({ kind: 'missing', line: 5, message: expect.stringContaining('line n=4 is missing') });
  });

  it('reordered lines', async () => {
    const list = await lines();
    [list[4], list[5]] = [list[5] as string, list[4] as string];
    await setLines(list);
    expect((await verifyAuditLog(path, { verifiers })).problem).toMatchObject({ kind: 'missing', line: 5, message: expect.stringContaining('n jumps from 3 to 5') });
  });

  it('a tail cut off cleanly (caught by the signed checkpoint)', async () => {
    const list = await lines();
    await setLines(list.slice(0, 15));
    const report = await verifyAuditLog(path, { verifiers });
    expect(report.problem).toMatchObject({ kind: 'truncated' });
    expect(report.problem?.message).toContain('had 21 lines (up to n=20), but it ends at n=14');
  });

  it('a wholesale rewrite with fresh hashes (caught by the signed checkpoint)', async () => {
    const list = await lines();
    const rewritten: string[] = [];
    let head = { next: 0, prev: '0'.repeat(64) };
    for (const line of list) {
      const parsed = JSON.parse(line) as { event: Record<string, unknown> };
      const event = parsed.event.type === 'tool.refused' ? { ...parsed.event, tool: 'innocent' } : parsed.event;
      const { text, hash } = formatLine(head, JSON.stringify(event));
      rewritten.push(text.trimEnd());
      head = { next: head.next + 1, prev: hash };
    }
    await setLines(rewritten);
    expect((await verifyAuditLog(path, { verifiers })).problem).toMatchObject({ kind: 'rewritten', message: expect.stringContaining('line n=20 does not have the hash') });
    // …and re-signing the checkpoint with another key does not help.
    const forger = parseSignerKey(generateSignerKey('test-audit'));
    const log = await ChainLog.open(path, { signer: forger });
    log.append(event(99));
    await log.close();
    expect((await verifyAuditLog(path, { verifiers })).problem).toMatchObject({ kind: 'bad-checkpoint', message: expect.stringContaining('not signed by the given key') });
  });

  it('two files spliced together', async () => {
    const first = await lines();
    const other = join(dir, 'other.jsonl');
    const log = await ChainLog.open(other);
    for (let i = 0; i < 20; i++) log.append(event(i));
    await log.close();
    await setLines([...first.slice(0, 10), ...(await lines(other)).slice(10)]);
    expect((await verifyAuditLog(path)).problem).toMatchObject({ kind: 'relinked', line: 11, message: expect.stringContaining('two chains spliced') });
  });

  it('a second writer appending from a stale head', async () => {
    const list = await lines();
    const stale = JSON.parse(list[18] as string) as { n: number; hash: string };
    await appendFile(path, formatLine({ next: stale.n + 1, prev: stale.hash }, JSON.stringify(event(77))).text);
    expect((await verifyAuditLog(path)).problem).toMatchObject({ kind: 'reordered', line: 22, message: expect.stringContaining('a second writer') });
  });

  it('an event the schema does not know', async () => {
    const log = await ChainLog.open(path);
    log.append({ ...event(1), fileContent: 'secret' });
    await log.close();
    expect((await verifyAuditLog(path)).ok).toBe(true);
    expect((await verifyAuditLog(path, { schema: true })).problem).toMatchObject({ kind: 'bad-event', message: expect.stringContaining('unknown field fileContent') });
  });
});

describe('one writer', () => {
  it('refuses a second writer while the first holds the lock, and takes over a stale lock', async () => {
    const first = await ChainLog.open(path);
    await expect(ChainLog.open(path)).rejects.toMatchObject({ code: 'ELOCKED' });
    await first.close();
    await writeFile(`${path}.lock`, '999999999\n');
    const second = await ChainLog.open(path);
    await second.close();
  });

  it('refuses a chain whose head is not the expected one', async () => {
    const log = await ChainLog.open(path);
    log.append(event(1));
    const head = log.currentHead;
    log.append(event(2));
    await log.close();
    await expect(ChainLog.open(path, { expectHead: head })).rejects.toMatchObject({ code: 'EHEAD' });
  });
});

describe('rotation', () => {
  it('continues the chain across files, each starting with audit.segment_started', async () => {
    const log = await ChainLog.open(path, { maxBytes: 4000, signer, checkpointEvery: 50 });
    for (let i = 0; i < 300; i++) {
      log.append(event(i));
      // Checkpoints sign what is written: one per flush that wrote 50 lines or more.
      if (i % 60 === 59) await log.flush();
    }
    await log.close();
    const names = (await readdir(dir)).filter((n) => /audit\.jsonl\.\d+$/.test(n));
    expect(names.length).toBeGreaterThan(5);
    const second = JSON.parse((await lines(`${path}.2`))[0] as string) as { event: { type: string; segment: number; previousFile: string } };
    expect(second.event).toMatchObject({ type: 'audit.segment_started', segment: 2, previousFile: 'audit.jsonl.1' });
    const report = await verifyAuditLog(path, { verifiers });
    expect(report.problem).toBeUndefined();
    expect(report.lines).toBe(301 + names.length);
    expect(report.checkpoints.checked).toBeGreaterThan(3);
    // A later segment alone verifies from the middle of the chain; checkpoints before it are skipped.
    const alone = await verifyAuditLog(path, { verifiers, files: [`${path}.3`, `${path}.4`] });
    expect(alone.ok).toBe(true);
    expect(alone.firstN).toBeGreaterThan(0);
    // A segment left out breaks the chain.
    const gap = await verifyAuditLog(path, { verifiers, files: [`${path}.1`, `${path}.3`] });
    expect(gap.problem).toMatchObject({ kind: 'missing', file: `${path}.3`, line: 1 });
  });
});

describe('a torn last line', () => {
  it('is reported precisely, refused by the writer, and repaired with an event saying so', async () => {
    await writeLog(10);
    const torn = '{"n":11,"prev":"0123';
    await appendFile(path, torn);
    const report = await verifyAuditLog(path, { verifiers });
    expect(report.problem).toMatchObject({ kind: 'torn', line: 12, message: expect.stringContaining(`${torn.length} bytes without a newline`) });
    await expect(ChainLog.open(path)).rejects.toBeInstanceOf(ChainLogError);
    await expect(ChainLog.open(path)).rejects.toMatchObject({ code: 'ETORN' });
    const log = await ChainLog.open(path, { onTorn: 'repair', signer });
    expect(log.repaired).toMatchObject({ line: 12, truncatedBytes: torn.length });
    await log.close();
    const last = JSON.parse((await lines()).at(-1) as string) as { event: Record<string, unknown> };
    expect(last.event).toMatchObject({ type: 'audit.repaired', line: 12, truncatedBytes: torn.length, reason: expect.stringContaining('torn') });
    expect(auditEventProblem(new TextEncoder().encode(JSON.stringify(last.event)))).toBeUndefined();
    expect((await verifyAuditLog(path, { verifiers })).ok).toBe(true);
  });
});
