// Runs compatibility suites from the command line and prints every difference:
//   npx tsx tests/compat/cli.ts --suite coreutils --target native [--file grep] [--grep text]
// Targets: `native` (our native binaries under real bash; for development) and `sandbox`
// (the acceptance target: a fresh sandbox per case); `sandbox-inline` is `sandbox` with
// python3 inline on the kernel thread (the mode of pages without SharedArrayBuffer).

import { loadSuite, suites, type LoadedCase } from './cases.js';
import { compare } from './compare.js';
import { runWithBash, type Outcome } from './reference.js';

interface Options {
  suites: string[];
  target: string;
  file?: string;
  grep?: string;
  jobs: number;
  verbose: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { suites: [], target: 'native', jobs: 8, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = (): string => argv[++i] ?? '';
    if (arg === '--suite') options.suites.push(next());
    else if (arg === '--target') options.target = next();
    else if (arg === '--file') options.file = next();
    else if (arg === '--grep') options.grep = next();
    else if (arg === '--jobs') options.jobs = Number(next());
    else if (arg === '-v' || arg === '--verbose') options.verbose = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (options.suites.length === 0) options.suites = suites();
  return options;
}

async function targetRunner(target: string): Promise<(c: LoadedCase) => Promise<Outcome>> {
  if (target === 'native') {
    const native = await import('./native-target.js');
    native.nativeBinDir();
    return native.runNative;
  }
  if (target === 'sandbox') return (await import('./sandbox-target.js')).createSandboxRunner();
  if (target === 'sandbox-inline') return (await import('./sandbox-target.js')).createSandboxRunner('inline');
  throw new Error(`unknown target ${target}`);
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  let cases = options.suites.flatMap(loadSuite);
  if (options.file) cases = cases.filter((c) => c.file.replace(/\.yaml$/, '') === options.file);
  if (options.grep) cases = cases.filter((c) => c.id.includes(options.grep as string));
  const run = await targetRunner(options.target);
  let passed = 0;
  let failed = 0;
  let known = 0;
  let skipped = 0;
  const queue = [...cases];
  const worker = async (): Promise<void> => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      if (c.skip) {
        skipped++;
        continue;
      }
      const [expected, actual] = await Promise.all([runWithBash(c), run(c)]);
      const verdict = compare(c, expected, actual);
      if (verdict.pass) {
        passed++;
        if (c.known_failure) console.log(`FIXED? ${c.id} passes but is marked known_failure`);
        if (options.verbose) console.log(`ok   ${c.id}`);
      } else if (c.known_failure) {
        known++;
        if (options.verbose) console.log(`known ${c.id}: ${c.known_failure}`);
      } else {
        failed++;
        console.log(`FAIL ${c.id}\n${verdict.detail}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.jobs }, worker));
  console.log(`${passed} passed, ${failed} failed, ${known} known failures, ${skipped} skipped`);
  process.exitCode = failed > 0 ? 1 : 0;
  if (options.target.startsWith('sandbox')) (await import('./sandbox-target.js')).drainWarmPool();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
