#!/usr/bin/env node
// `npm test`: every test, from a fresh clone. Installs what it needs, rebuilds the wasm
// and fails if the committed files differ, then runs the Rust tests, the TypeScript unit,
// host and compatibility suites (vitest) and the browser tests (Playwright in Debian's
// Chromium). Ends with one line `N passed, N failed` for CI.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSER_PACKAGES, BUILD_PACKAGES, REFERENCE_PACKAGES, ensureDebianPackages, ensureNpmPackages } from './setup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const results = [];
let passed = 0;
let failed = 0;

function stage(name, fn) {
  const started = Date.now();
  console.log(`\n=== ${name}`);
  try {
    const counts = fn();
    passed += counts.passed;
    failed += counts.failed;
    results.push(`${name}: ${counts.passed} passed, ${counts.failed} failed (${Math.round((Date.now() - started) / 1000)} s)`);
  } catch (error) {
    failed += 1;
    results.push(`${name}: could not run: ${error.message.split('\n')[0]}`);
    console.error(error.message);
  }
}

function run(program, args, options = {}) {
  return spawnSync(program, args, { cwd: root, stdio: 'inherit', encoding: 'utf8', ...options });
}

ensureDebianPackages(root, [BUILD_PACKAGES, REFERENCE_PACKAGES, BROWSER_PACKAGES]);
ensureNpmPackages(root);
mkdirSync(join(root, 'test-results'), { recursive: true });

stage('wasm is reproducible', () => {
  execFileSync('node', ['scripts/build-wasm.mjs'], { cwd: root, stdio: 'inherit' });
  const diff = spawnSync('git', ['status', '--porcelain', '--', 'public/wasm', 'tests/wasm'], { cwd: root, encoding: 'utf8' });
  if (diff.stdout.trim() !== '') {
    console.error(`The committed wasm differs from a fresh build:\n${diff.stdout}`);
    return { passed: 0, failed: 1 };
  }
  return { passed: 1, failed: 0 };
});

stage('build', () => {
  execFileSync('node', ['scripts/build-node.mjs'], { cwd: root, stdio: 'inherit' });
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  execFileSync('npx', ['tsc', '--noEmit', '-p', '.'], { cwd: root, stdio: 'inherit' });
  return { passed: 1, failed: 0 };
});

stage('Rust tests (cargo test)', () => {
  // The dev profile: it compiles in 2.3 min against 4 min for the release profile's LTO
  // build on 2 cores, and keeps overflow checks on. Doc-tests are left out: the crates keep
  // their examples in unit tests (and under LTO rustdoc cannot read bitcode-only rlibs).
  const result = run('/usr/bin/cargo', ['test', '--workspace', '--lib', '--bins', '--tests'], {
    cwd: join(root, 'crates'),
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, RUSTC: '/usr/bin/rustc' },
  });
  process.stdout.write(result.stdout ?? '');
  const counts = { passed: 0, failed: 0 };
  for (const match of (result.stdout ?? '').matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
    counts.passed += Number(match[1]);
    counts.failed += Number(match[2]);
  }
  if (result.status !== 0 && counts.failed === 0) counts.failed = 1;
  return counts;
});

stage('TypeScript tests (vitest)', () => {
  const output = join(root, 'test-results/vitest.json');
  const result = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${output}`]);
  if (!existsSync(output)) return { passed: 0, failed: 1 };
  const report = JSON.parse(readFileSync(output, 'utf8'));
  const counts = { passed: report.numPassedTests + (report.numPendingTests ?? 0) * 0, failed: report.numFailedTests };
  if (result.status !== 0 && counts.failed === 0) counts.failed = 1;
  return counts;
});

stage('browser tests (Playwright, Chromium)', () => {
  const output = join(root, 'test-results/e2e/results.json');
  const result = run('npx', ['playwright', 'test']);
  if (!existsSync(output)) return { passed: 0, failed: 1 };
  const report = JSON.parse(readFileSync(output, 'utf8'));
  const counts = { passed: report.stats.expected + (report.stats.flaky ?? 0), failed: report.stats.unexpected };
  if (result.status !== 0 && counts.failed === 0) counts.failed = 1;
  return counts;
});

console.log('\n=== summary');
for (const line of results) console.log(line);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
