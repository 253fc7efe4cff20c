// The recorded oracle: what the real tool printed for each case, kept next to the case in
// tests/compat/<suite>/<topic>.recorded.yaml, so the suite compares with a recording and
// needs no reference tools installed. `npm run compat:record` (record.ts) makes and
// refreshes the recordings; this module reads and writes them.
//
// Each recording names its case and carries a digest of the case's inputs (script, files,
// stdin, compare_stderr): an edited case no longer matches its recording, and the suite
// says so instead of comparing with the output of another script.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { COMPAT_ROOT, type CompatCase, type LoadedCase } from './cases.js';
import type { Outcome } from './reference.js';

export const RECORDING_SUFFIX = '.recorded.yaml';

/** One case's recorded reference result. */
export interface Recording {
  name: string;
  input: string;
  status: number;
  stdout: Buffer;
  /** Only for cases that compare stderr. */
  stderr?: Buffer;
}

/** On disk: text as a YAML string when it is UTF-8, otherwise base64. */
interface StoredRecording {
  name: string;
  input: string;
  status: number;
  stdout?: string;
  stdout_base64?: string;
  stderr?: string;
  stderr_base64?: string;
}

const HEADER = [
  '# Recorded from the real tools by `npm run compat:record`; do not edit by hand.',
  '# Tool versions: tests/compat/recorded-with.yaml. How to refresh: docs/compat.md.',
].join('\n');

/** Digest of everything that decides a case's reference output. */
export function caseInput(c: CompatCase): string {
  const files = Object.entries(c.files ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const material = JSON.stringify([c.script, files, c.stdin ?? null, c.compare_stderr === true]);
  return createHash('sha256').update(material).digest('hex').slice(0, 16);
}

export function recordingFile(suite: string, caseFile: string): string {
  return join(COMPAT_ROOT, suite, caseFile.replace(/\.yaml$/, RECORDING_SUFFIX));
}

function decodeText(text: string | undefined, base64: string | undefined): Buffer {
  if (base64 !== undefined) return Buffer.from(base64, 'base64');
  return Buffer.from(text ?? '', 'utf8');
}

/** The recordings of one case file, by case name (empty when there is no file yet). */
export function loadRecordings(suite: string, caseFile: string): Map<string, Recording> {
  return readRecordingFile(recordingFile(suite, caseFile));
}

export function readRecordingFile(path: string): Map<string, Recording> {
  const out = new Map<string, Recording>();
  if (!existsSync(path)) return out;
  const stored = (parse(readFileSync(path, 'utf8')) ?? []) as StoredRecording[];
  if (!Array.isArray(stored)) throw new Error(`${path}: expected a list of recordings`);
  for (const s of stored) {
    const recording: Recording = { name: s.name, input: s.input, status: s.status, stdout: decodeText(s.stdout, s.stdout_base64) };
    if (s.stderr !== undefined || s.stderr_base64 !== undefined) recording.stderr = decodeText(s.stderr, s.stderr_base64);
    out.set(s.name, recording);
  }
  return out;
}

const YAML_OPTIONS = { lineWidth: 0, blockQuote: 'literal' } as const;

/** A string YAML gives back byte for byte, or undefined (then base64 is stored). */
function asText(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) return undefined;
  // Block scalars normalise line breaks (\r\n); such output is kept as base64.
  const back: unknown = parse(stringify({ text }, YAML_OPTIONS));
  if ((back as { text?: unknown }).text !== text) return undefined;
  return text;
}

function store(recording: Recording): StoredRecording {
  const out: StoredRecording = { name: recording.name, input: recording.input, status: recording.status };
  const stdout = asText(recording.stdout);
  if (stdout !== undefined) out.stdout = stdout;
  else out.stdout_base64 = recording.stdout.toString('base64');
  if (recording.stderr !== undefined) {
    const stderr = asText(recording.stderr);
    if (stderr !== undefined) out.stderr = stderr;
    else out.stderr_base64 = recording.stderr.toString('base64');
  }
  return out;
}

/** Writes a case file's recordings (in case order), or removes the file when there are none. */
export function writeRecordings(suite: string, caseFile: string, recordings: Recording[]): void {
  writeRecordingFile(recordingFile(suite, caseFile), recordings);
}

export function writeRecordingFile(path: string, recordings: Recording[]): void {
  if (recordings.length === 0) {
    if (existsSync(path)) unlinkSync(path);
    return;
  }
  // Literal block scalars and no line folding: a changed line of output is a changed line
  // of the file in review.
  const text = stringify(recordings.map(store), YAML_OPTIONS);
  const written = `${HEADER}\n${text}`;
  const back = (parse(written) as StoredRecording[]).map((s, i) => ({ s, r: recordings[i] as Recording }));
  for (const { s, r } of back) {
    if (!decodeText(s.stdout, s.stdout_base64).equals(r.stdout) || (r.stderr !== undefined && !decodeText(s.stderr, s.stderr_base64).equals(r.stderr))) {
      throw new Error(`${path}: the recording of "${r.name}" does not read back as written`);
    }
  }
  writeFileSync(path, written);
}

export function recordingOf(c: LoadedCase, outcome: Outcome): Recording {
  const recording: Recording = { name: c.name, input: caseInput(c), status: outcome.status, stdout: outcome.stdout };
  if (c.compare_stderr) recording.stderr = outcome.stderr;
  return recording;
}

export function outcomeOf(recording: Recording): Outcome {
  return { stdout: recording.stdout, stderr: recording.stderr ?? Buffer.alloc(0), status: recording.status, timedOut: false };
}

export class MissingRecordingError extends Error {
  override name = 'MissingRecordingError';
}

/**
 * The recorded reference outcome of each case of a suite, by case id. A case with no
 * recording, or one made for other inputs, maps to the error to report.
 */
export function recordedOutcomes(cases: LoadedCase[]): Map<string, Outcome | MissingRecordingError> {
  const byFile = new Map<string, Map<string, Recording>>();
  const out = new Map<string, Outcome | MissingRecordingError>();
  for (const c of cases) {
    const key = `${c.suite}/${c.file}`;
    let recordings = byFile.get(key);
    if (recordings === undefined) {
      recordings = loadRecordings(c.suite, c.file);
      byFile.set(key, recordings);
    }
    const recording = recordings.get(c.name);
    const how = `record it with: npm run compat:record -- --suite ${c.suite} --file ${c.file.replace(/\.yaml$/, '')}`;
    if (recording === undefined) out.set(c.id, new MissingRecordingError(`${c.id}: no recording of the reference result; ${how}`));
    else if (recording.input !== caseInput(c)) out.set(c.id, new MissingRecordingError(`${c.id}: the case changed since it was recorded; ${how}`));
    else out.set(c.id, outcomeOf(recording));
  }
  return out;
}

/** The recorded outcome of `c` from a map of recordedOutcomes(), or throws why there is none. */
export function recordedOutcome(recorded: Map<string, Outcome | MissingRecordingError>, c: LoadedCase): Outcome {
  const outcome = recorded.get(c.id) ?? new MissingRecordingError(`${c.id}: not among the cases whose recordings were loaded`);
  if (outcome instanceof MissingRecordingError) throw outcome;
  return outcome;
}
