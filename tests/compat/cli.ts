// Runs compatibility suites from the command line and prints every difference:
//   npx tsx tests/compat/cli.ts --suite coreutils --target native [--file grep] [--grep text] [--live]
// Targets: `native` (our native binaries under real bash; for development) and `sandbox`
// (the acceptance target: sandbox-target.ts, as `npm test` runs it); `sandbox-inline` is
// `sandbox` with python3 inline on the kernel thread (the mode of pages without
// SharedArrayBuffer). Ours is compared with the recorded reference result; --live compares
// with the real tool run now instead (what `npm run compat:record` would record).

import { loadSuite, suites, type LoadedCase } from './cases.js';
import { recordedOutcome, recordedOutcomes } from './recording.js';
import { runWithBash, type Outcome } from './reference.js';
import { Tally } from './tally.js';

interface Options {
  suites: string[];
  target: string;
  file?: string;
  grep?: string;
  jobs: number;
  verbose: boolean;
  live: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { suites: [], target: 'native', jobs: 8, verbose: false, live: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = (): string => argv[++i] ?? '';
    if (arg === '--suite') options.suites.push(next());
    else if (arg === '--target') options.target = next();
    else if (arg === '--file') options.file = next();
    else if (arg === '--grep') options.grep = next();
    else if (arg === '--jobs') options.jobs = Number(next());
    else if (arg === '-v' || arg === '--verbose') options.verbose = true;
    else if (arg === '--live') options.live = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (options.suites.length === 0) options.suites = suites();
  return options;
}

type Report = (c: LoadedCase, actual: Outcome) => Promise<void>;

/** Runs every case on `target`, reporting each outcome as it comes. */
async function runTarget(target: string, cases: LoadedCase[], jobs: number, report: Report): Promise<void> {
  if (target === 'sandbox' || target === 'sandbox-inline') {
    const { runInSandboxes } = await import('./sandbox-target.js');
    const pending: Array<Promise<void>> = [];
    await runInSandboxes(cases, { pythonMode: target === 'sandbox' ? 'worker' : 'inline', onOutcome: (c, outcome) => pending.push(report(c, outcome)) });
    await Promise.all(pending);
    return;
  }
  if (target !== 'native') throw new Error(`unknown target ${target}`);
  const native = await import('./native-target.js');
  native.nativeBinDir();
  const queue = [...cases];
  const worker = async (): Promise<void> => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) await report(c, await native.runNative(c));
  };
  await Promise.all(Array.from({ length: jobs }, worker));
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  let cases = options.suites.flatMap(loadSuite);
  if (options.file) cases = cases.filter((c) => c.file.replace(/\.yaml$/, '') === options.file);
  if (options.grep) cases = cases.filter((c) => c.id.includes(options.grep as string));
  const recorded = recordedOutcomes(cases);
  const reference = async (c: LoadedCase): Promise<Outcome> => (options.live ? runWithBash(c) : recordedOutcome(recorded, c));
  const tally = new Tally(options.verbose);
  tally.skipped = cases.filter((c) => c.skip).length;
  const report: Report = (c, actual) => tally.record(c, () => reference(c), actual);
  await runTarget(options.target, cases.filter((c) => !c.skip), options.jobs, report);
  console.log(tally.summary());
  process.exitCode = tally.failed > 0 ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
