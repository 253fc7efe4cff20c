// Verifies a chain on disk end to end: every file of it in order (ChainVerifier), then the
// signed checkpoints against the hashes seen on the way. The first problem ends the check
// and is reported with its file, line and reason.

import { open, readFile } from 'node:fs/promises';
import { ChainVerifier, type ChainProblem, type ChainProblemKind } from './chain-verifier.js';
import { readCheckpoints, type ReadCheckpoint } from './checkpoint.js';
import { chainIdOf, checkpointsPath, fileSize, readFirstLine } from './chain-files.js';
import type { ChainHead } from './chain-line.js';
import type { NoteVerifier } from './signed-note.js';

export type VerifyProblemKind = ChainProblemKind | 'missing-file' | 'truncated' | 'rewritten' | 'bad-checkpoint';

export interface VerifyProblem {
  kind: VerifyProblemKind;
  file: string;
  /** 1-based line number in `file`, when the problem is a line. */
  line?: number;
  offset?: number;
  message: string;
}

export interface VerifyReport {
  ok: boolean;
  files: string[];
  lines: number;
  /** n of the first line (> 0 when earlier segments were not given). */
  firstN: number | undefined;
  head: ChainHead;
  chainId: string | undefined;
  problem: VerifyProblem | undefined;
  /**
   * Checkpoints checked; `before`/`after`: skipped because they name lines before the first
   * file given, or after the last one given when that is a rotated segment (FILE.<k>), not
   * the chain's newest file.
   */
  checkpoints: { file: string; checked: number; authenticated: boolean; before: number; after: number; tornTail: boolean };
}

export interface VerifyOptions {
  /** Keys whose checkpoint signatures count; without any, checkpoints are checked unauthenticated. */
  verifiers?: NoteVerifier[];
  /** Checks each event (its JSON bytes); returns why it is not acceptable. */
  checkEvent?: (json: Uint8Array) => string | undefined;
  /** The checkpoints file (default: FILE.checkpoints of the chain's newest file). */
  checkpointsFile?: string;
}

const CHUNK = 4 << 20;

/** Whether `path` is a rotated segment (FILE.<k>) rather than a chain's newest file. */
function isSegment(path: string): boolean {
  return /\.[1-9]\d*$/.test(path);
}

/** The checkpoints file of a chain whose newest given file is `path` (FILE for FILE.<k> too). */
export function defaultCheckpointsFile(path: string): string {
  return checkpointsPath(path.replace(/\.[1-9]\d*$/, ''));
}

async function readCheckpointFile(path: string, verifiers: NoteVerifier[]): Promise<{ checkpoints: ReadCheckpoint[]; tornTail: boolean } | { error: string }> {
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { checkpoints: [], tornTail: false };
    throw error;
  }
  try {
    return readCheckpoints(content, verifiers);
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Verifies the chain made of `files` (oldest first) and its checkpoints. */
export async function verifyChain(files: string[], options: VerifyOptions = {}): Promise<VerifyReport> {
  const verifiers = options.verifiers ?? [];
  const last = files.at(-1) ?? '';
  const checkpointsFile = options.checkpointsFile ?? defaultCheckpointsFile(last);
  const read = await readCheckpointFile(checkpointsFile, verifiers);
  const report: VerifyReport = {
    ok: false,
    files,
    lines: 0,
    firstN: undefined,
    head: { next: 0, prev: '' },
    chainId: undefined,
    problem: undefined,
    checkpoints: { file: checkpointsFile, checked: 0, authenticated: verifiers.length > 0, before: 0, after: 0, tornTail: false },
  };
  if ('error' in read) {
    report.problem = { kind: 'bad-checkpoint', file: checkpointsFile, message: read.error };
    return report;
  }
  report.checkpoints.tornTail = read.tornTail;
  report.chainId = files.length > 0 ? chainIdOf(await readFirstLine(files[0] as string)) : undefined;
  const verifier = new ChainVerifier({ want: new Set(read.checkpoints.map((c) => c.size - 1)), checkEvent: options.checkEvent });
  const fail = (problem: ChainProblem | VerifyProblem): VerifyReport => {
    report.problem = { ...problem };
    report.lines = verifier.lines;
    report.firstN = verifier.firstN;
    report.head = verifier.head;
    return report;
  };
  // Two buffers: the next chunk is read while the last one is checked (on a busy machine a
  // read waited for in turn costs a scheduling delay per chunk; verifying is CPU-bound).
  const buffers = [new Uint8Array(CHUNK), new Uint8Array(CHUNK)] as const;
  for (const file of files) {
    if ((await fileSize(file)) === undefined) return fail({ kind: 'missing-file', file, message: 'no such file' });
    verifier.beginFile(file);
    const handle = await open(file, 'r');
    let position = 0;
    let which = 0;
    const readNext = (): Promise<{ bytesRead: number; buffer: Uint8Array }> => {
      const read = handle.read(buffers[which], 0, CHUNK, position);
      which = 1 - which;
      return read;
    };
    let reading = readNext();
    try {
      for (;;) {
        const { bytesRead, buffer } = await reading;
        if (bytesRead === 0) break;
        position += bytesRead;
        // feed() keeps a copy of a partial last line, so `buffer` may be read into again next.
        reading = readNext();
        const problem = verifier.feed(buffer.subarray(0, bytesRead));
        if (problem !== undefined) return fail(problem);
      }
    } finally {
      await reading.catch(() => undefined);
      await handle.close();
    }
    const problem = verifier.endFile();
    if (problem !== undefined) return fail(problem);
  }
  report.lines = verifier.lines;
  report.firstN = verifier.firstN;
  report.head = verifier.head;
  const lastN = verifier.head.next - 1;
  for (const checkpoint of read.checkpoints) {
    const n = checkpoint.size - 1;
    const where = `checkpoint ${checkpoint.index} in ${checkpointsFile}`;
    if (report.chainId !== undefined && checkpoint.chainId !== report.chainId) {
      return fail({ kind: 'bad-checkpoint', file: checkpointsFile, message: `${where} is for chain ${checkpoint.chainId}, not this chain (${report.chainId})` });
    }
    if (n > lastN && isSegment(last)) {
      report.checkpoints.after++;
      continue;
    }
    if (n > lastN) {
      return fail({
        kind: 'truncated',
        file: last,
        message: `the log was cut off: ${where} was signed when the chain had ${checkpoint.size} lines (up to n=${n}), but it ends at n=${lastN}`,
      });
    }
    if (verifier.firstN !== undefined && n < verifier.firstN) {
      report.checkpoints.before++;
      continue;
    }
    if (verifier.hashes.get(n) !== checkpoint.hash) {
      return fail({ kind: 'rewritten', file: last, message: `the log was rewritten: line n=${n} does not have the hash ${where} signed` });
    }
    report.checkpoints.checked++;
  }
  report.ok = true;
  return report;
}
