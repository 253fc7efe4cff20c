// `npm run compat:record -- [--suite S]... [--file F] [--grep T] [--accept | --accept-case ID]... [--check]`
//
// Runs every selected case with the real tools on this machine and updates the recordings
// (tests/compat/<suite>/<topic>.recorded.yaml) and the tool versions
// (tests/compat/recorded-with.yaml). A new case, or one whose script, files or stdin
// changed, is recorded. A case whose recording today's tool disagrees with is listed with
// the difference and kept as it was, unless accepted: --accept takes today's output for
// every listed case, --accept-case ID for that one. --check writes nothing.

import { fileURLToPath } from 'node:url';
import { ensureDebianPackages, REFERENCE_PACKAGES } from '../../scripts/setup.mjs';
import { loadSuite, suites, type LoadedCase } from './cases.js';
import { compare } from './compare.js';
import { caseInput, loadRecordings, recordingOf, outcomeOf, writeRecordings, type Recording } from './recording.js';
import { runWithBash } from './reference.js';
import { installedVersions, recordedVersions, versionChanges, writeRecordedVersions } from './tool-versions.js';

interface Options {
  suites: string[];
  file?: string;
  grep?: string;
  acceptAll: boolean;
  accept: Set<string>;
  check: boolean;
  jobs: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { suites: [], acceptAll: false, accept: new Set(), check: false, jobs: 4 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = (): string => {
      const value = argv[++i];
      if (value === undefined) throw new Error(`compat:record: ${arg} needs a value`);
      return value;
    };
    if (arg === '--suite') options.suites.push(next());
    else if (arg === '--file') options.file = next();
    else if (arg === '--grep') options.grep = next();
    else if (arg === '--accept') options.acceptAll = true;
    else if (arg === '--accept-case') options.accept.add(next());
    else if (arg === '--check') options.check = true;
    else if (arg === '--jobs') options.jobs = Number(next());
    else throw new Error(`compat:record: unknown argument ${arg} (see the header of tests/compat/record.ts)`);
  }
  const known = suites();
  for (const suite of options.suites) if (!known.includes(suite)) throw new Error(`compat:record: no suite ${suite}; suites: ${known.join(', ')}`);
  if (options.suites.length === 0) options.suites = known;
  return options;
}

type Result =
  | { kind: 'unchanged' | 'new' | 'edited'; recording: Recording }
  | { kind: 'accepted' | 'disagrees'; recording: Recording; detail: string }
  | { kind: 'error'; detail: string };

async function recordCase(c: LoadedCase, previous: Recording | undefined, options: Options): Promise<Result> {
  const live = await runWithBash(c);
  if (live.timedOut) return { kind: 'error', detail: `the reference timed out after ${c.timeout ?? 10_000} ms` };
  const recording = recordingOf(c, live);
  if (previous === undefined) return { kind: 'new', recording };
  if (previous.input !== caseInput(c)) return { kind: 'edited', recording };
  const verdict = compare(c, outcomeOf(previous), live);
  if (verdict.pass) return { kind: 'unchanged', recording: previous };
  const detail = `recorded → today's tool:\n${verdict.detail}`;
  if (options.acceptAll || options.accept.has(c.id)) return { kind: 'accepted', recording, detail };
  return { kind: 'disagrees', recording: previous, detail };
}

/** Runs `work` over `items` with at most `jobs` at a time, keeping the order of results. */
async function pool<T, R>(items: T[], jobs: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  return results;
}

async function recordSuite(suite: string, options: Options, installed: Record<string, string>): Promise<{ open: number; errors: number }> {
  const whole = options.file === undefined && options.grep === undefined;
  const changes = versionChanges(recordedVersions()[suite], installed);
  console.log(`\n== ${suite}`);
  if (changes.length > 0) console.log(`tool versions that differ from the recording:\n  ${changes.join('\n  ')}`);
  const counts = { unchanged: 0, new: 0, edited: 0, accepted: 0, disagrees: 0, error: 0, removed: 0 };
  const all = loadSuite(suite);
  for (const file of new Set(all.map((c) => c.file))) {
    if (options.file !== undefined && file.replace(/\.yaml$/, '') !== options.file) continue;
    const cases = all.filter((c) => c.file === file && c.skip === undefined);
    const previous = loadRecordings(suite, file);
    const selected = (c: LoadedCase): boolean => options.grep === undefined || c.id.includes(options.grep);
    const results = await pool(cases, options.jobs, (c) => (selected(c) ? recordCase(c, previous.get(c.name), options) : Promise.resolve(undefined)));
    const next: Recording[] = [];
    cases.forEach((c, i) => {
      const result = results[i];
      if (result === undefined) {
        const kept = previous.get(c.name);
        if (kept !== undefined) next.push(kept);
        return;
      }
      counts[result.kind]++;
      if (result.kind === 'error') {
        console.log(`ERROR ${c.id}: ${result.detail}`);
        const kept = previous.get(c.name);
        if (kept !== undefined) next.push(kept);
        return;
      }
      next.push(result.recording);
      if (result.kind === 'new') console.log(`new        ${c.id}`);
      else if (result.kind === 'edited') console.log(`re-recorded (the case changed) ${c.id}`);
      else if (result.kind === 'accepted') console.log(`ACCEPTED   ${c.id}\n${indent(result.detail)}`);
      else if (result.kind === 'disagrees') {
        console.log(`DISAGREES  ${c.id} (recording kept; to take today's output: --accept-case ${JSON.stringify(c.id)})\n${indent(result.detail)}`);
      }
    });
    // Recordings of cases that are gone (removed, renamed or now skipped) go with them.
    const names = new Set(cases.map((c) => c.name));
    for (const name of previous.keys()) {
      if (names.has(name)) continue;
      counts.removed++;
      console.log(`removed    ${suite}/${file.replace(/\.yaml$/, '')}: ${name} (no such case to run)`);
    }
    if (!options.check) writeRecordings(suite, file, next);
  }
  const summary = Object.entries(counts).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
  console.log(`${suite}: ${summary || 'nothing selected'}`);
  if (!whole) {
    if (changes.length > 0) console.log(`${suite}: versions in recorded-with.yaml not updated (only part of the suite was run)`);
  } else if (counts.disagrees > 0 || counts.error > 0) {
    console.log(`${suite}: versions in recorded-with.yaml not updated: ${counts.disagrees + counts.error} cases keep recordings today's tools do not reproduce`);
  } else if (!options.check && changes.length > 0) {
    writeRecordedVersions(suite, installed);
    console.log(`${suite}: recorded-with.yaml updated`);
  }
  return { open: counts.disagrees, errors: counts.error };
}

function indent(text: string): string {
  return text.split('\n').map((line) => `    ${line}`).join('\n');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  ensureDebianPackages(fileURLToPath(new URL('../..', import.meta.url)), [REFERENCE_PACKAGES]);
  const installed = installedVersions();
  let open = 0;
  let errors = 0;
  for (const suite of options.suites) {
    const result = await recordSuite(suite, options, installed);
    open += result.open;
    errors += result.errors;
  }
  if (open > 0) console.log(`\n${open} cases disagree with today's tools; their recordings were kept. Decide per case (--accept-case ID) or for all (--accept).`);
  if (options.check) console.log('--check: nothing written');
  process.exitCode = open > 0 || errors > 0 ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 2;
});
