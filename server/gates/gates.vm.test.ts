// Gates in real microVMs (TCG here; the `vm` stage of npm test). Few and small: each case is
// one VM. Skipped with the reason when the guest image or QEMU is missing.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTripwire, type Tripwire } from '../../tests/network/tripwire.js';
import type { SandboxSpecInput } from '../backends/contract.js';
import { createSandboxClient } from '../backends/registry.js';
import { parseSandboxSpec } from '../backends/spec.js';
import { collectTestsSignal } from './signals/tests.js';
import { collectTraceSignal, observedIdentities, readTrace } from './signals/trace.js';

const client = createSandboxClient('qemu');
let skip: string | null = null;
let root = '';
const work = '/home/user/work';
const execute = (input: SandboxSpecInput) => client.execute(parseSandboxSpec(input), { runsDir: join(root, 'runs') });

beforeAll(async () => {
  const health = await client.health();
  skip = health.reachable ? null : health.reasons.join('; ');
  root = mkdtempSync(join(tmpdir(), 'airlock-gates-vm-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('gates in a qemu microVM', () => {
  it('a Node project: npm ci --offline from a prepared cache, then npm test', { timeout: 1_200_000 }, async (context) => {
    if (skip !== null) context.skip(skip);
    const dep = join(root, 'dep');
    mkdirSync(dep, { recursive: true });
    writeFileSync(join(dep, 'package.json'), JSON.stringify({ name: 'airlock-tiny-dep', version: '1.0.0', main: 'index.js' }));
    writeFileSync(join(dep, 'index.js'), 'module.exports = (a, b) => a + b;\n');
    const tgz = join(root, execFileSync('npm', ['pack', dep, '--pack-destination', root], { encoding: 'utf8' }).trim().split('\n').at(-1) as string);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
    const ws = join(root, 'node-ws');
    mkdirSync(ws, { recursive: true });
    execFileSync('npm', ['cache', 'add', tgz, '--cache', join(ws, '.npm-cache')], { stdio: 'ignore' });
    writeFileSync(join(ws, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', scripts: { test: 'node --test' }, dependencies: { 'airlock-tiny-dep': '1.0.0' } }));
    writeFileSync(join(ws, 'package-lock.json'), JSON.stringify({
      name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true,
      packages: {
        '': { name: 'app', version: '1.0.0', dependencies: { 'airlock-tiny-dep': '1.0.0' } },
        'node_modules/airlock-tiny-dep': { version: '1.0.0', resolved: 'https://registry.npmjs.org/airlock-tiny-dep/-/airlock-tiny-dep-1.0.0.tgz', integrity },
      },
    }));
    writeFileSync(join(ws, 'add.test.js'), "const test = require('node:test');\nconst assert = require('node:assert');\nconst add = require('airlock-tiny-dep');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n");
    const run = await execute({
      copyIn: [{ hostPath: ws, guestPath: work, mode: 'rw' }],
      timeBudgetSeconds: 1200,
      phases: [{ name: 'install', argv: ['npm', 'ci', '--offline', '--no-audit', '--no-fund', '--cache', `${work}/.npm-cache`] }, { name: 'test', argv: ['npm', 'test'] }],
    });
    expect(run.phases.map((p) => [p.name, p.exitCode])).toEqual([['install', 0], ['test', 0]]);
    const signal = collectTestsSignal(run);
    expect(signal.passed).toBe(true);
    expect(signal.summary).toBe('1 passed (tap)');
  });

  it('a Python project: pytest, one failure named', async (context) => {
    if (skip !== null) context.skip(skip);
    const ws = join(root, 'py-ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'test_math.py'), 'def test_ok():\n    assert 1 + 1 == 2\n\ndef test_bad():\n    assert 2 * 2 == 5\n');
    const run = await execute({ copyIn: [{ hostPath: ws, guestPath: work, mode: 'rw' }], phases: [{ name: 'test', argv: ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider'] }] });
    const signal = collectTestsSignal(run);
    expect(signal.passed).toBe(false);
    expect(signal.summary).toBe('1 of 2 failed (pytest); first: test_math.py::test_bad');
  });

  it('scoped: a matching upstream answers through the egress proxy, anything else is refused, nothing else is reached', async (context) => {
    if (skip !== null) context.skip(skip);
    const upstream: Server = createServer((_req, res) => res.end('hello from upstream\n'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (upstream.address() as { port: number }).port;
    const tripwire: Tripwire = await startTripwire();
    try {
      const run = await execute({
        network: 'scoped',
        egressAllowlist: [`127.0.0.1:${upstreamPort}`],
        phases: [{
          name: 'net',
          argv: ['sh', '-c', [
            `curl -sS --max-time 20 http://127.0.0.1:${upstreamPort}/ ; echo "matching=$?"`,
            `curl -sS --max-time 20 -o /dev/null -w '%{http_code}' http://127.0.0.1:${tripwire.port}/ ; echo " notmatching=$?"`,
            `curl -sS --max-time 5 --noproxy '*' http://10.0.2.2:${tripwire.port}/ ; echo "direct=$?"`,
            `curl -sS --max-time 5 --noproxy '*' http://10.0.2.3:53/ ; echo "dns=$?"`,
          ].join('; ')],
        }],
      });
      const out = readFileSync(run.phases[0]?.stdoutPath ?? '', 'utf8');
      expect(out).toContain('hello from upstream');
      expect(out).toContain('matching=0');
      expect(out).toMatch(/403 notmatching=0/);
      expect(out).not.toContain('direct=0');
      expect(out).not.toContain('tripped');
      expect(tripwire.connections).toBe(0);
    } finally {
      upstream.close();
      await tripwire.close();
    }
  });

  it('a trace gate fails on a new shell invocation, naming it, not retryable', async (context) => {
    if (skip !== null) context.skip(skip);
    const run = await execute({ enableTrace: true, phases: [{ name: 'test', argv: ['sh', '-c', 'ls / > /dev/null; sh -c "echo new shell"'] }] });
    const observed = observedIdentities(readTrace(run.tracePath ?? ''));
    expect(observed).toContain('exec /usr/bin/sh -c echo new shell');
    const baseline = join(root, 'baseline.json');
    writeFileSync(baseline, JSON.stringify({ entries: observed.filter((entry) => entry !== 'exec /usr/bin/sh -c echo new shell') }));
    const signal = collectTraceSignal(run, baseline);
    expect(signal.passed).toBe(false);
    expect(signal.retryable).toBe(false);
    expect(signal.summary).toBe('1 not in the baseline: exec /usr/bin/sh -c echo new shell');
  });

  it('OOM in the guest is detected and reported', async (context) => {
    if (skip !== null) context.skip(skip);
    // Pages really written (a zero-filled bytearray would stay untouched), 200 MiB: past the
    // 64 MiB cgroup limit, within the VM's memory, so the cgroup's OOM killer acts.
    const run = await execute({ memoryLimitMiB: 64, phases: [{ name: 'hog', argv: ['python3', '-c', 'x = [b"\\x01" * (1024 * 1024) for _ in range(200)]; print(len(x))'] }] });
    expect(run.killedByOom).toBe(true);
    expect(run.exitCode).toBe(137);
  });
});
