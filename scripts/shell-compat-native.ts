// The shell's development loop: runs the bash compatibility cases (tests/compat/bash)
// with real /bin/bash and with our shell built for this machine, in fresh temporary
// directories with the same environment, and prints every difference.
//
//   npx tsx scripts/shell-compat-native.ts [--file quoting] [--grep text] [-v] [--no-build]
//   npx tsx scripts/shell-compat-native.ts --sandbox /path/to/wasm-dir [...]
//
// With --sandbox, our side is a fresh sandbox per case whose modules come from the given
// directory (a manifest.json with shell.wasm in it), for trying a shell.wasm before it is
// in public/wasm.
//
// The acceptance run is the sandbox target of tests/compat/cli.ts; this one only needs
// cargo, so it runs in seconds while the shell is being written.

import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadSuite, type LoadedCase } from '../tests/compat/cases.js';
import { compare } from '../tests/compat/compare.js';
import { caseEnv, makeCaseDir, runWithBash, SANDBOX_HOME, type Outcome } from '../tests/compat/reference.js';

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
}

function parseArgs(argv: string[]): Options {
  const options: Options = { verbose: false, build: true, jobs: 8 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--file') options.file = argv[++i];
    else if (arg === '--grep') options.grep = argv[++i];
    else if (arg === '--jobs') options.jobs = Number(argv[++i]);
    else if (arg === '--no-build') options.build = false;
    else if (arg === '--sandbox') options.sandbox = argv[++i];
    else if (arg === '--release') continue;
    else if (arg === '-v' || arg === '--verbose') options.verbose = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

function replaceAll(buffer: Buffer, from: string, to: string): Buffer {
  const text = buffer.toString('latin1');
  return text.includes(from) ? Buffer.from(text.split(from).join(to), 'latin1') : buffer;
}

/** Runs our shell as `bash -c script` would run (argv[0] `/bin/bash`, like the oracle). */
function runOurs(c: LoadedCase): Promise<Outcome> {
  const dir = makeCaseDir(c);
  return new Promise((resolve, reject) => {
    const child = spawn(shellBinary, ['-c', c.script], {
      argv0: '/bin/bash',
      cwd: dir,
      env: caseEnv(dir, '/usr/local/bin:/usr/bin:/bin'),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, c.timeout ?? 10_000);
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    child.stdin.on('error', () => {});
    child.stdin.end(c.stdin ?? '');
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      const signals: Record<string, number> = { SIGPIPE: 13, SIGKILL: 9, SIGTERM: 15, SIGINT: 2, SIGSEGV: 11, SIGABRT: 6 };
      resolve({
        stdout: replaceAll(Buffer.concat(stdout), dir, SANDBOX_HOME),
        stderr: replaceAll(Buffer.concat(stderr), dir, SANDBOX_HOME),
        status: code ?? (signal ? 128 + (signals[signal] ?? 0) : 1),
        timedOut,
      });
    });
  });
}

async function sandboxRunner(wasmDir: string): Promise<(c: LoadedCase) => Promise<Outcome>> {
  const { Sandbox } = await import('../src/host/node/index.js');
  return async (c: LoadedCase): Promise<Outcome> => {
    const sandbox = await Sandbox.create({ files: c.files, wasmDir });
    try {
      const result = await sandbox.run(c.script, {
        env: caseEnv(SANDBOX_HOME, '/usr/local/bin:/usr/bin:/bin'),
        stdin: c.stdin,
        timeoutMs: c.timeout ?? 10_000,
      });
      return {
        stdout: Buffer.from(result.stdoutBytes),
        stderr: Buffer.from(result.stderrBytes),
        status: result.exitCode,
        timedOut: result.errorClass === 'timeout',
      };
    } finally {
      await sandbox.destroy();
    }
  };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const runSandbox = options.sandbox !== undefined ? await sandboxRunner(options.sandbox) : undefined;
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
      const [expected, actual] = await Promise.all([runWithBash(c), runSandbox ? runSandbox(c) : runOurs(c)]);
      const verdict = compare(c, expected, actual);
      if (verdict.pass) {
        passed++;
        if (c.known_failure) console.log(`FIXED? ${c.id} passes but is marked known_failure`);
        if (options.verbose) console.log(`ok   ${c.id}`);
      } else if (c.known_failure) {
        known++;
        if (options.verbose) console.log(`known ${c.id}: ${c.known_failure}\n${verdict.detail}\n`);
      } else {
        failed++;
        console.log(`FAIL ${c.id}\n${verdict.detail}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.jobs }, worker));
  const total = passed + failed + known;
  const rate = total === 0 ? 0 : (100 * passed) / total;
  console.log(`${passed} passed, ${failed} failed, ${known} known failures, ${skipped} skipped (${rate.toFixed(1)}% pass)`);
  process.exitCode = failed > 0 ? 1 : 0;
  if (runSandbox) (await import('../src/host/node/index.js')).drainWarmPool();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
