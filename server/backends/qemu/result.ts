// Reads a run's output disk: one tar written by the guest agent, hostile input. Entries
// under .airlock-result/ are the agent's (meta, logs/<n>.out|err, trace/<n>.strace), each
// capped; every other entry must lie inside one of the spec's copy-out paths and goes
// through CopyOutWriter (no links, devices, '..'; capped). A truncated or malformed archive
// ends the reading; what was accepted before stays.

import { closeSync, createReadStream, openSync, readSync, writeFileSync } from 'node:fs';
import { extract, type Header } from 'tar-stream';
import { GATE_LIMITS } from '../../../src/protocol/limits.js';
import type { PhaseResult, SandboxSpec, TraceEntry } from '../contract.js';
import { phaseLogPaths } from '../run-dir.js';
import type { CopyOutKind, CopyOutWriter } from '../copy-out.js';
import { phaseTrace } from './strace.js';

export interface GuestMeta {
  phases: Array<{ n: number; exitCode: number; durationMs: number }>;
  timedOut: boolean;
  oom: boolean;
  complete: boolean;
}

export interface GuestResult {
  meta: GuestMeta;
  logs: Map<string, Uint8Array>;
  trace: TraceEntry[];
  /** Why the archive could not be read to its end, if it could not. */
  problem: string | null;
}

const RESULT_PREFIX = '.airlock-result/';
const META_BYTES = 64 * 1024;
const TRACE_BYTES = 16 * 1024 * 1024;

export function parseMeta(text: string): GuestMeta {
  const meta: GuestMeta = { phases: [], timedOut: false, oom: false, complete: false };
  for (const line of text.split('\n')) {
    const phase = /^phase (\d{1,2}) (\d{1,3}) (\d{1,12})$/.exec(line);
    if (phase !== null) meta.phases.push({ n: Number(phase[1]), exitCode: Number(phase[2]), durationMs: Number(phase[3]) });
    else if (line === 'timedout 1') meta.timedOut = true;
    else if (line === 'oom 1') meta.oom = true;
    else if (line === 'end') meta.complete = true;
  }
  return meta;
}

function kindOf(header: Header): CopyOutKind {
  switch (header.type) {
    case 'file': case 'contiguous-file': return 'file';
    case 'directory': return 'dir';
    case 'symlink': return 'symlink';
    case 'link': return 'hardlink';
    case 'character-device': case 'block-device': return 'device';
    case 'fifo': return 'fifo';
    default: return 'other';
  }
}

function insideCopyOut(path: string, spec: SandboxSpec): boolean {
  const clean = path.replace(/\/+$/, '');
  return spec.copyOut.some((out) => {
    const rel = out.replace(/^\/+/, '');
    return clean === rel || clean.startsWith(`${rel}/`);
  });
}

async function drain(stream: AsyncIterable<unknown>, cap: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const item of stream) {
    const chunk = item as Buffer;
    if (size < cap) chunks.push(chunk.subarray(0, cap - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks);
}

export async function readGuestResult(outDisk: string, spec: SandboxSpec, writer: CopyOutWriter): Promise<GuestResult> {
  const logs = new Map<string, Uint8Array>();
  let metaText = '';
  const traceTexts: string[] = [];
  const parser = extract();
  let problem: string | null = null;
  // The disk is far larger than most archives: reading stops at the archive's end (a zero
  // block where the next header would be) instead of parsing the zeros after it.
  const fd = openSync(outDisk, 'r');
  const zeroBlockAt = (offset: number): boolean => {
    const block = Buffer.alloc(512);
    return readSync(fd, block, 0, 512, offset) === 512 && block.every((byte) => byte === 0);
  };
  type Entry = AsyncIterable<unknown> & { header: Header; resume(): void };
  const readEntry = async (entry: Entry): Promise<void> => {
    const header = entry.header;
    const name = header.name;
    if (name.startsWith(RESULT_PREFIX)) {
      const rel = name.slice(RESULT_PREFIX.length);
      if (kindOf(header) !== 'file') entry.resume();
      else if (rel === 'meta') metaText = new TextDecoder().decode(await drain(entry, META_BYTES));
      else if (/^logs\/\d{1,2}\.(out|err)$/.test(rel)) logs.set(rel.slice('logs/'.length), await drain(entry, GATE_LIMITS.phaseLogBytes + 1));
      else if (/^trace\/\d{1,2}\.strace$/.test(rel)) traceTexts.push(new TextDecoder().decode(await drain(entry, TRACE_BYTES)));
      else entry.resume();
      return;
    }
    const kind = kindOf(header);
    if (!insideCopyOut(name, spec)) {
      writer.admit(name, 'other', 0);
      entry.resume();
    } else if (kind === 'dir') {
      writer.dir(name);
      entry.resume();
    } else if (kind === 'file') {
      const sink = writer.openFile(name, header.size ?? 0);
      if (sink === false) {
        entry.resume();
        return;
      }
      try {
        for await (const chunk of entry as AsyncIterable<Buffer>) sink.write(chunk);
      } finally {
        sink.close();
      }
    } else {
      writer.admit(name, kind, 0, header.linkname ?? undefined);
      entry.resume();
    }
  };
  const done = (async () => {
    if (zeroBlockAt(0)) return;
    for await (const entry of parser) {
      // tar-stream sets byteOffset: where the entry's data starts in the archive.
      const dataOffset = (entry.header as Header & { byteOffset?: number }).byteOffset;
      await readEntry(entry);
      if (dataOffset !== undefined && zeroBlockAt(dataOffset + Math.ceil((entry.header.size ?? 0) / 512) * 512)) break;
    }
  })();
  const input = createReadStream(outDisk);
  input.pipe(parser);
  try {
    await done;
  } catch (error) {
    problem = `the output archive could not be read to its end: ${(error as Error).message}`;
  } finally {
    input.destroy();
    closeSync(fd);
  }
  return { meta: parseMeta(metaText), logs, trace: traceTexts.flatMap(phaseTrace), problem };
}

export function writeLog(path: string, data: Uint8Array | undefined): void {
  const bytes = data ?? new Uint8Array(0);
  writeFileSync(path, bytes.length > GATE_LIMITS.phaseLogBytes ? bytes.subarray(bytes.length - GATE_LIMITS.phaseLogBytes) : bytes);
}

/** The phases the guest reported, with their logs written into `logsDir` (qemu and firecracker). */
export function phasesFromResult(result: GuestResult, spec: SandboxSpec, logsDir: string): PhaseResult[] {
  return result.meta.phases.flatMap((entry) => {
    const phase = spec.phases[entry.n - 1];
    if (phase === undefined) return [];
    const paths = phaseLogPaths(logsDir, entry.n - 1, phase.name);
    writeLog(paths.stdoutPath, result.logs.get(`${entry.n}.out`));
    writeLog(paths.stderrPath, result.logs.get(`${entry.n}.err`));
    return [{ name: phase.name, exitCode: entry.exitCode, durationMs: entry.durationMs, ...paths }];
  });
}
