#!/usr/bin/env node
// `npm test`: every test, from a fresh clone. Installs what it needs, then runs the stages
// of STAGES: the wasm rebuild (fails if the committed files differ), the Rust tests, the
// node and web builds with the typecheck, the TypeScript unit, host and compatibility suites
// (vitest) and the browser tests (Playwright in Debian's Chromium). Ends with each stage's
// time and counts and one line `N passed, N failed` for CI.
//
// Stages run side by side (the machine this must finish on has 2 cores, and no stage keeps
// both busy for long): a stage starts once the stages it `needs` have passed, at most
// AIRLOCK_TEST_PARALLEL (default 3) at a time, earlier rows of the table first. Each
// writes its output to test-results/logs/<id>.log; a failed stage's log tail is printed at
// the end. To add a stage, add a row: { id, title, needs, run }, where run(stage) awaits
// stage.exec(program, args) (output to the log) and returns { passed, failed }; see
// docs/testing.md.

import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSER_PACKAGES, BUILD_PACKAGES, RUNTIME_PACKAGES, VM_PACKAGES, ensureDebianPackages, ensureNpmPackages } from './setup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const results = join(root, 'test-results');
const logs = join(results, 'logs');

/**
 * The stages of `npm test`, in the order they are started when they may: the longest chains
 * first (build then vitest; the VM tests under TCG take one core for many minutes).
 */
const STAGES = [
  {
    id: 'build',
    title: 'build (node bundles, web app)',
    needs: [],
    async run(stage) {
      await stage.exec('node', ['scripts/build-node.mjs']);
      await stage.exec('npx', ['vite', 'build', '--logLevel', 'warn']);
      return { passed: 1, failed: 0 };
    },
  },
  {
    id: 'vitest',
    title: 'TypeScript tests (vitest)',
    // The kernel bundle the sandboxes run is built by `build`.
    needs: ['build'],
    // Two test files at a time: most of them wait on sandbox children, and the
    // compatibility file runs its own sandboxes side by side (vitest's default on 2 cores
    // is one file at a time).
    run: (stage) => vitest(stage, 'vitest.json', ['--maxWorkers=2']),
  },
  {
    id: 'vm',
    title: 'VM tests (qemu microVMs; KVM or TCG)',
    needs: [],
    async run(stage) {
      // The guest image is built once per recipe and kept in ~/.cache/airlock/vm (minutes the
      // first time: Debian packages; seconds after a change to the agent only).
      await stage.exec('node', ['--import', 'tsx', 'server/backends/qemu/build-image.ts']);
      return vitest(stage, 'vitest-vm.json', ['-c', 'vitest.vm.config.ts']);
    },
  },
  {
    id: 'wasm',
    title: 'wasm is reproducible',
    needs: [],
    async run(stage) {
      // Built beside the repository, so the other stages keep using the committed files.
      const out = join(results, 'wasm-rebuild');
      rmSync(out, { recursive: true, force: true });
      await stage.exec('node', ['scripts/build-wasm.mjs', '--out', out]);
      const differences = ['public/wasm', 'public/packages', 'tests/wasm', 'tests/wasi/bin'].flatMap((dir) => differingFiles(join(root, dir), join(out, dir), dir));
      if (differences.length === 0) return { passed: 1, failed: 0 };
      stage.log(`The committed wasm differs from a fresh build (node scripts/build-wasm.mjs rebuilds it):\n  ${differences.join('\n  ')}`);
      return { passed: 0, failed: 1 };
    },
  },
  {
    id: 'e2e',
    title: 'browser tests (Playwright, Chromium)',
    needs: ['build'],
    async run(stage) {
      const output = join(results, 'e2e/results.json');
      rmSync(output, { force: true });
      const status = await stage.exec('npx', ['playwright', 'test'], { check: false });
      if (!existsSync(output)) return { passed: 0, failed: 1 };
      const report = JSON.parse(readFileSync(output, 'utf8'));
      return atLeastOneFailure(status, { passed: report.stats.expected + (report.stats.flaky ?? 0), failed: report.stats.unexpected });
    },
  },
  {
    id: 'cargo',
    title: 'Rust tests (cargo test)',
    needs: [],
    async run(stage) {
      // The dev profile: it compiles in 2.3 min against 4 min for the release profile's LTO
      // build on 2 cores, and keeps overflow checks on. Doc-tests are left out: the crates
      // keep their examples in unit tests (and under LTO rustdoc cannot read bitcode-only rlibs).
      // No debug info and no incremental data: a one-off build that only runs the tests
      // needs neither, and both cost compile time.
      const status = await stage.exec('/usr/bin/cargo', ['test', '--workspace', '--lib', '--bins', '--tests'], {
        cwd: join(root, 'crates'),
        env: { RUSTC: '/usr/bin/rustc', CARGO_PROFILE_DEV_DEBUG: '0', CARGO_INCREMENTAL: '0' },
        check: false,
      });
      const counts = { passed: 0, failed: 0 };
      for (const match of stage.output().matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
        counts.passed += Number(match[1]);
        counts.failed += Number(match[2]);
      }
      return atLeastOneFailure(status, counts);
    },
  },
  {
    id: 'typecheck',
    title: 'typecheck (tsc)',
    needs: [],
    async run(stage) {
      await stage.exec('npx', ['tsc', '--noEmit', '-p', '.']);
      return { passed: 1, failed: 0 };
    },
  },
];

/** Runs vitest with `args` and counts its tests from the JSON report `report` (in test-results/). */
async function vitest(stage, report, args) {
  const output = join(results, report);
  rmSync(output, { force: true });
  const status = await stage.exec('npx', ['vitest', 'run', ...args, '--reporter=default', '--reporter=json', `--outputFile.json=${output}`], { check: false });
  if (!existsSync(output)) return { passed: 0, failed: 1 };
  const counts = JSON.parse(readFileSync(output, 'utf8'));
  return atLeastOneFailure(status, { passed: counts.numPassedTests, failed: counts.numFailedTests });
}

/** Files of the two directories (one level) that are missing on one side or differ; `label` names them. */
function differingFiles(committed, built, label) {
  const names = (dir) => (existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith('.')) : []);
  const all = [...new Set([...names(committed), ...names(built)])].sort();
  return all.flatMap((name) => {
    const a = join(committed, name);
    const b = join(built, name);
    if (!existsSync(a)) return [`${label}/${name}: built but not committed`];
    if (!existsSync(b)) return [`${label}/${name}: committed but not built`];
    return readFileSync(a).equals(readFileSync(b)) ? [] : [`${label}/${name}: differs`];
  });
}

/** A stage whose command failed fails, even when its report counted no failed test. */
function atLeastOneFailure(status, counts) {
  return status !== 0 && counts.failed === 0 ? { ...counts, failed: 1 } : counts;
}

class StageError extends Error {}

const started = Date.now();
const clock = () => {
  const s = Math.round((Date.now() - started) / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
};
const running = new Set();
const TIME = '/usr/bin/time';

/** What a stage's run() gets: exec() with output to the stage's log, and the log so far. */
function stageContext(spec) {
  const path = join(logs, `${spec.id}.log`);
  const stream = createWriteStream(path);
  let text = '';
  let commands = 0;
  let cpuSeconds = 0;
  const write = (chunk) => {
    text += chunk;
    stream.write(chunk);
  };
  return {
    path,
    log: (line) => write(`${line}\n`),
    output: () => text,
    cpuSeconds: () => cpuSeconds,
    close: () => new Promise((resolve) => stream.end(resolve)),
    /** Runs a program to its end; rejects on a non-zero exit unless `check` is false. */
    exec(program, args, { cwd = root, env = {}, check = true } = {}) {
      write(`$ ${program} ${args.join(' ')}\n`);
      // GNU time adds up the CPU time of the command and everything it waited for.
      const timing = join(logs, `${spec.id}.cpu-${commands++}`);
      const [command, commandArgs] = existsSync(TIME) ? [TIME, ['-q', '-f', '%U %S', '-o', timing, program, ...args]] : [program, args];
      return new Promise((resolve, reject) => {
        const child = spawn(command, commandArgs, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
        running.add(child);
        child.stdout.on('data', write);
        child.stderr.on('data', write);
        child.on('error', (error) => {
          running.delete(child);
          reject(new StageError(`${program}: ${error.message}`));
        });
        child.on('close', (code, signal) => {
          running.delete(child);
          if (existsSync(timing)) {
            const [user, system] = readFileSync(timing, 'utf8').trim().split('\n').pop().split(' ').map(Number);
            if (Number.isFinite(user) && Number.isFinite(system)) cpuSeconds += user + system;
            rmSync(timing, { force: true });
          }
          const status = code ?? 128;
          if (check && status !== 0) reject(new StageError(`${program} ${args[0] ?? ''} ended with ${signal ?? `status ${code}`}`));
          else resolve(status);
        });
      });
    },
  };
}

async function runStage(spec) {
  const stage = stageContext(spec);
  const begin = Date.now();
  console.log(`[${clock()}] ${spec.title}: started`);
  let counts;
  let error;
  try {
    counts = await spec.run(stage);
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
    stage.log(`\nnpm test: ${error}`);
    counts = { passed: 0, failed: 1 };
  }
  await stage.close();
  const seconds = Math.round((Date.now() - begin) / 1000);
  const cpu = Math.round(stage.cpuSeconds());
  console.log(`[${clock()}] ${spec.title}: ${counts.passed} passed, ${counts.failed} failed (${seconds} s, cpu ${cpu} s)`);
  return { ...counts, seconds, cpu, error, log: stage.path, ok: counts.failed === 0 };
}

/** Runs the table: each stage once its needs have passed, `parallel` at a time. */
async function runStages(stages, parallel) {
  for (const spec of stages) {
    for (const need of spec.needs) if (!stages.some((s) => s.id === need)) throw new Error(`stage ${spec.id} needs ${need}, which is not a stage`);
  }
  const outcome = new Map();
  const active = new Map();
  for (;;) {
    for (const spec of stages) {
      if (outcome.has(spec.id) || active.has(spec.id)) continue;
      const failedNeed = spec.needs.find((n) => outcome.has(n) && !outcome.get(n).ok);
      if (failedNeed !== undefined) {
        outcome.set(spec.id, { passed: 0, failed: 1, seconds: 0, error: `not run: it needs ${failedNeed}, which failed`, ok: false });
        continue;
      }
      if (active.size >= parallel || !spec.needs.every((n) => outcome.get(n)?.ok)) continue;
      active.set(spec.id, runStage(spec).then((result) => ({ id: spec.id, result })));
    }
    if (active.size === 0) break;
    const { id, result } = await Promise.race(active.values());
    active.delete(id);
    outcome.set(id, result);
  }
  return outcome;
}

function tail(path, lines) {
  if (!existsSync(path)) return '';
  return readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n');
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of running) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    process.exit(130);
  });
}

const setupBegin = Date.now();
// The compat suites compare with recorded results (tests/compat/recording.ts): the reference
// tools are needed only by `npm run compat:record`.
ensureDebianPackages(root, [BUILD_PACKAGES, RUNTIME_PACKAGES, BROWSER_PACKAGES, VM_PACKAGES]);
ensureNpmPackages(root);
mkdirSync(logs, { recursive: true });
const setupSeconds = Math.round((Date.now() - setupBegin) / 1000);

const parallel = Math.max(1, Number(process.env.AIRLOCK_TEST_PARALLEL ?? 3));
const only = process.argv.slice(2);
const stages = only.length === 0 ? STAGES : STAGES.filter((s) => only.includes(s.id)).map((s) => ({ ...s, needs: s.needs.filter((n) => only.includes(n)) }));
const outcome = await runStages(stages, parallel);

let passed = 0;
let failed = 0;
for (const spec of stages) {
  const result = outcome.get(spec.id);
  if (result.ok) continue;
  console.log(`\n--- ${spec.title}${result.error ? `: ${result.error}` : ''}${result.log ? ` (log: ${result.log})` : ''}`);
  if (result.log) console.log(tail(result.log, 80));
}
// CPU seconds say how much work a stage was on a machine shared with other work; the load
// average says how shared it was.
console.log(`\n=== stage times (${parallel} at a time; wall ${clock()}; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
console.log(`setup: ${setupSeconds} s`);
for (const spec of stages) {
  const result = outcome.get(spec.id);
  passed += result.passed;
  failed += result.failed;
  const cpu = result.cpu === undefined ? '' : `, cpu ${result.cpu} s`;
  console.log(`${spec.title}: ${result.passed} passed, ${result.failed} failed (${result.seconds} s${cpu})${result.error ? ` — ${result.error}` : ''}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
