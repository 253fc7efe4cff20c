// The shell's development loop: runs the bash compatibility cases (tests/compat/bash)
// with real /bin/bash and with our shell built for this machine, in fresh temporary
// directories with the same environment, and prints every difference.
//
//   npx tsx scripts/shell-compat-native.ts [--file quoting] [--grep text] [-v] [--no-build] [--live]
//   npx tsx scripts/shell-compat-native.ts --sandbox /path/to/wasm-dir [...]
//
// With --sandbox, our side runs in sandboxes (as `npm test` runs the cases) whose modules
// come from the given directory (a manifest.json with shell.wasm in it), for trying a
// shell.wasm before it is in public/wasm.
//
// Ours is compared with the reference results recorded beside the cases (record a new case
// first: `npm run compat:record -- --suite bash --file <topic>`); --live runs /bin/bash now
// instead. The acceptance run is the sandbox target of tests/compat/cli.ts; this one only
// needs cargo, so it runs in seconds while the shell is being written.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loadSuite, type LoadedCase } from '../tests/compat/cases.js';
import { recordedOutcome, recordedOutcomes } from '../tests/compat/recording.js';
import { runInCaseDir, runWithBash, type Outcome } from '../tests/compat/reference.js';
import { runInSandboxes } from '../tests/compat/sandbox-target.js';
import { Tally } from '../tests/compat/tally.js';

const repoRoot = new URL('../', import.meta.url).pathname;
const targetDir = process.env.SHELL_TARGET_DIR ?? '/tmp/target-shell';
const release = process.argv.includes('--release');
const shellBinary = join(targetDir, release ? 'release' : 'debug', 'shell');

interface Options {
  sandbox?: string;
  file?: string;
  grep?: string;
  verbose: boolean;
  build: boolean;
  jobs: number;
  live: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { verbose: false, build: true, jobs: 8, live: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--file') options.file = argv[++i];
    else if (arg === '--grep') options.grep = argv[++i];
    else if (arg === '--jobs') options.jobs = Number(argv[++i]);
    else if (arg === '--no-build') options.build = false;
    else if (arg === '--live') options.live = true;
    else if (arg === '--sandbox') options.sandbox = argv[++i];
    else if (arg === '--release') continue;
    else if (arg === '-v' || arg === '--verbose') options.verbose = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

/** Runs our shell as `bash -c script` would run (argv[0] `/bin/bash`, like the oracle). */
function runOurs(c: LoadedCase): Promise<Outcome> {
  return runInCaseDir(c, shellBinary, { path: '/usr/local/bin:/usr/bin:/bin', argv0: '/bin/bash' });
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.sandbox !== undefined) options.build = false;
  if (options.build) {
    execFileSync('/usr/bin/cargo', ['build', ...(release ? ['--release'] : []), '-p', 'shell'], {
      cwd: join(repoRoot, 'crates'),
      env: { ...process.env, RUSTC: '/usr/bin/rustc', CARGO_TARGET_DIR: targetDir },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  let cases = loadSuite('bash');
  if (options.file) cases = cases.filter((c) => c.file.replace(/\.yaml$/, '') === options.file);
  if (options.grep) cases = cases.filter((c) => c.id.includes(options.grep as string));
  // With --sandbox, the cases run first, in sandboxes as `npm test` runs them.
  const inSandbox = options.sandbox === undefined ? undefined : await runInSandboxes(cases.filter((c) => !c.skip), { wasmDir: options.sandbox });
  const ours = async (c: LoadedCase): Promise<Outcome> => inSandbox?.get(c.id) ?? runOurs(c);
  const recorded = recordedOutcomes(cases);
  const reference = async (c: LoadedCase): Promise<Outcome> => (options.live ? runWithBash(c) : recordedOutcome(recorded, c));
  const tally = new Tally(options.verbose);
  const queue = [...cases];
  const worker = async (): Promise<void> => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      if (c.skip) tally.skipped++;
      else await tally.record(c, () => reference(c), await ours(c));
    }
  };
  await Promise.all(Array.from({ length: options.jobs }, worker));
  console.log(tally.summary());
  process.exitCode = tally.failed > 0 ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
