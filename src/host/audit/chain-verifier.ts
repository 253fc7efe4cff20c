// Checks a hash chain as its bytes stream past, file after file (a rotated chain is its
// files in order), and stops at the first broken line, saying where and why:
//   - a line whose hash does not match its bytes was edited;
//   - n going back means a second writer appended, or lines were reordered;
//   - n jumping ahead means lines were removed (or a file was cut out of the chain);
//   - prev not matching the line before means that line was replaced (an edit with its hash
//     recomputed, or two chains spliced together);
//   - bytes after the last newline are a torn line (a writer stopped mid-append).
// A cut-off tail or a wholesale rewrite leaves a chain that holds; the signed checkpoints
// (checkpoint.ts) catch those, using the hashes this verifier records on the way.

import { GENESIS_PREV, hexAt, hexEquals, parseLine, type ChainHead } from './chain-line.js';
import { hashInto } from './hash.js';

export type ChainProblemKind = 'malformed' | 'edited' | 'reordered' | 'missing' | 'relinked' | 'torn' | 'bad-event';

export interface ChainProblem {
  kind: ChainProblemKind;
  file: string;
  /** 1-based line number within `file`. */
  line: number;
  /** Byte offset of the line's start within `file`. */
  offset: number;
  message: string;
}

export interface ChainVerifierOptions {
  /** Checks a line's event (its JSON text); returns why it is not acceptable. */
  checkEvent?: (json: Uint8Array) => string | undefined;
  /** Positions whose hashes to record (for checkpoints). */
  want?: ReadonlySet<number>;
}

const NEWLINE = 0x0a;

export class ChainVerifier {
  /** Lines verified, over all files. */
  lines = 0;
  /** n of the first line seen (0 unless the chain was given from the middle). */
  firstN: number | undefined;
  /** Position of the next line, and the hex digits of the last good line's hash. */
  private next = 0;
  private readonly prevHex = new TextEncoder().encode(GENESIS_PREV);
  private readonly digest = new Uint8Array(32);
  readonly hashes = new Map<number, string>();
  problem: ChainProblem | undefined;

  private file = '';
  private lineInFile = 0;
  private offsetInFile = 0;
  private carry: Uint8Array | undefined;

  constructor(private readonly options: ChainVerifierOptions = {}) {}

  /** Where the chain stands after the last good line. */
  get head(): ChainHead {
    return { next: this.next, prev: hexAt(this.prevHex, 0) };
  }

  beginFile(name: string): void {
    this.file = name;
    this.lineInFile = 0;
    this.offsetInFile = 0;
    this.carry = undefined;
  }

  /** Verifies the complete lines in `chunk` (a partial last line waits for the next chunk). */
  feed(chunk: Uint8Array): ChainProblem | undefined {
    if (this.problem !== undefined) return this.problem;
    let bytes = chunk;
    if (this.carry !== undefined) {
      bytes = new Uint8Array(this.carry.length + chunk.length);
      bytes.set(this.carry);
      bytes.set(chunk, this.carry.length);
      this.carry = undefined;
    }
    let start = 0;
    for (;;) {
      const end = bytes.indexOf(NEWLINE, start);
      if (end < 0) break;
      if (this.checkLine(bytes.subarray(start, end)) !== undefined) return this.problem;
      this.offsetInFile += end + 1 - start;
      start = end + 1;
    }
    if (start < bytes.length) this.carry = bytes.slice(start);
    return undefined;
  }

  /** Ends the current file: anything after its last newline is a torn line. */
  endFile(): ChainProblem | undefined {
    if (this.problem !== undefined) return this.problem;
    if (this.carry !== undefined && this.carry.length > 0) {
      const bytes = this.carry.length;
      this.carry = undefined;
      return this.fail(
        'torn',
        this.lineInFile + 1,
        `torn line: ${bytes} bytes without a newline at the end of the file (a writer stopped mid-append); 'airlock audit repair' removes them and records that it did`,
      );
    }
    return undefined;
  }

  private fail(kind: ChainProblemKind, line: number, message: string): ChainProblem {
    this.problem = { kind, file: this.file, line, offset: this.offsetInFile, message };
    return this.problem;
  }

  private checkLine(line: Uint8Array): ChainProblem | undefined {
    const number = ++this.lineInFile;
    const parsed = parseLine(line);
    if ('error' in parsed) return this.fail('malformed', number, `not a chain line: ${parsed.error}`);
    hashInto(parsed.body, this.digest);
    if (!hexEquals(line, parsed.hashAt, this.digest)) return this.fail('edited', number, `the hash does not match the line's content: line n=${parsed.n} was edited`);
    if (this.firstN === undefined) {
      this.firstN = parsed.n;
      if (parsed.n === 0 && hexAt(line, parsed.prevAt) !== GENESIS_PREV) return this.fail('relinked', number, 'the first line of the chain (n=0) must have prev 000…0');
      this.next = parsed.n;
      this.prevHex.set(line.subarray(parsed.prevAt, parsed.prevAt + 64));
    }
    const expected = this.next;
    if (parsed.n < expected) {
      return this.fail('reordered', number, `n goes back from ${expected - 1} to ${parsed.n}: a second writer appended to this chain, or lines were reordered`);
    }
    if (parsed.n > expected) {
      const missing = parsed.n - expected === 1 ? `line n=${expected} is missing` : `lines n=${expected}…${parsed.n - 1} are missing`;
      return this.fail('missing', number, `n jumps from ${expected - 1} to ${parsed.n}: ${missing} (removed, reordered, or a file left out)`);
    }
    if (!sameBytes(line, parsed.prevAt, this.prevHex)) {
      return this.fail('relinked', number, `prev does not match the hash of line n=${expected - 1}: that line was replaced (an edit with its hash recomputed, or two chains spliced together)`);
    }
    const check = this.options.checkEvent?.(line.subarray(parsed.eventStart, parsed.eventEnd));
    if (check !== undefined) return this.fail('bad-event', number, `line n=${parsed.n}: ${check}`);
    if (this.options.want?.has(parsed.n) === true) this.hashes.set(parsed.n, hexAt(line, parsed.hashAt));
    this.next = parsed.n + 1;
    this.prevHex.set(line.subarray(parsed.hashAt, parsed.hashAt + 64));
    this.lines++;
    return undefined;
  }
}

function sameBytes(line: Uint8Array, at: number, expected: Uint8Array): boolean {
  for (let i = 0; i < expected.length; i++) if (line[at + i] !== expected[i]) return false;
  return true;
}
