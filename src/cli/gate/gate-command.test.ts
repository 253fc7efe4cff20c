// `airlock gate` through the CLI entry (main), on the wasm backend: exit codes and --json.
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cli } from '../../../tests/helpers/cli-capture.js';
import { scratchGateWorkspace } from '../../../tests/helpers/gate-workspace.js';

describe('airlock gate', () => {
  let root: string;
  let workspace: string;
  beforeEach(() => {
    ({ root, workspace } = scratchGateWorkspace('airlock-gate-cli-'));
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(root, { recursive: true, force: true });
  });

  it('run --json: passed exits 0 with attempts and the ledger path', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "echo ok 1 - works"\n');
    const result = await cli(['gate', 'run', 'tests', '--workspace', workspace, '--backend', 'wasm', '--gates-dir', join(root, 'g'), '--json']);
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout);
    expect(outcome.outcome).toBe('passed');
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.ledger).toMatch(/attempts\.jsonl$/);
    const inspected = await cli(['gate', 'inspect', outcome.gateRunId, '--gates-dir', join(root, 'g'), '--json']);
    expect(inspected.code).toBe(0);
    expect(JSON.parse(inspected.stdout).attempts[0].attemptId).toBe(outcome.attempts[0].attemptId);
  });

  it('--regenerate CMD gets the failure and its fix passes attempt 2', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "grep -q fixed state || { echo \\"not ok 1 - state\\"; exit 1; }"\n');
    writeFileSync(join(workspace, 'state'), 'broken\n');
    const result = await cli(['gate', 'run', 'tests', '--workspace', workspace, '--backend', 'wasm', '--gates-dir', join(root, 'g'), '--json', '--regenerate', 'cat > prior-failure.txt; echo fixed > state']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['failed', 'passed']);
  });

  it('usage errors exit 2: override without ack, unknown gate, unknown backend, no command', async () => {
    const base = ['gate', 'run', 'tests', '--workspace', workspace, '--backend', 'wasm', '--gates-dir', join(root, 'g')];
    expect((await cli([...base, '--max-attempts-override', '5'])).stderr).toMatch(/needs --operator-ack/);
    expect((await cli([...base, '--max-attempts-override', '5'])).code).toBe(2);
    expect((await cli(['gate', 'run', 'nope', '--workspace', workspace])).code).toBe(2);
    expect((await cli(['gate', 'run', 'tests', '--workspace', workspace, '--backend', 'docker'])).stderr).toMatch(/'docker' is not one of wasm, qemu, firecracker/);
    expect((await cli(base)).stderr).toMatch(/no test command/);
  });

  it('an invalid catalog file stops everything with exit 2 naming file and line', async () => {
    const catalog = join(root, 'catalog');
    mkdirSync(catalog);
    writeFileSync(join(catalog, 'bad.yaml'), 'id: bad\ndescription: d\nrequiredSignals: [tests]\nspec:\n  phases: [{ name: t }]\n');
    const result = await cli(['gate', 'run', 'tests', '--workspace', workspace, '--catalog', catalog]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.yaml:5: spec\.phases\.0: must have required property 'argv'/);
  });

  it('gc --older-than removes the runs older than the age and keeps the rest', async () => {
    const runs = join(root, 'g/runs');
    for (const name of ['old-1', 'old-2', 'recent']) {
      mkdirSync(join(runs, name), { recursive: true });
      writeFileSync(join(runs, name, 'attempts.jsonl'), '');
    }
    const eightDaysAgo = (Date.now() - 8 * 86_400_000) / 1000;
    for (const name of ['old-1', 'old-2']) utimesSync(join(runs, name), eightDaysAgo, eightDaysAgo);
    const result = await cli(['gate', 'gc', '--older-than', '7d', '--gates-dir', join(root, 'g')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`removed 2 gate runs older than the cutoff from ${runs}\n`);
    expect(readdirSync(runs)).toEqual(['recent']);
    // An age of 0 s removes the recent run too.
    expect((await cli(['gate', 'gc', '--older-than', '0s', '--gates-dir', join(root, 'g')])).stdout).toMatch(/^removed 1 gate run older/);
    expect((await cli(['gate', 'gc', '--older-than', 'soon'])).code).toBe(2);
  });

  it('--max-attempts-override N with --operator-ack runs N attempts', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "echo not ok 1 - always; exit 1"\n');
    const base = ['gate', 'run', 'tests', '--workspace', workspace, '--backend', 'wasm', '--gates-dir', join(root, 'g'), '--json', '--operator-ack'];
    const two = await cli([...base, '--max-attempts-override', '2']);
    expect(two.code).toBe(11);
    const outcome = JSON.parse(two.stdout);
    expect(outcome.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['failed', 'failed']);
    expect(outcome.reason).toMatch(/^2 attempts failed identically/);
    const one = JSON.parse((await cli([...base, '--max-attempts-override', '1'])).stdout);
    expect(one.attempts).toHaveLength(1);
    expect((await cli([...base, '--max-attempts-override', '11'])).stderr).toMatch(/'11' must be an integer from 1 to 10/);
  });

  it('an unreachable backend exits 1 before any attempt, naming why and the remedy (health first)', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "true"\n');
    vi.stubEnv('AIRLOCK_VM_CACHE', join(root, 'empty-vm-cache'));
    vi.stubEnv('AIRLOCK_FIRECRACKER', join(root, 'no-such/firecracker'));
    const qemu = await cli(['gate', 'run', 'tests', '--workspace', workspace, '--backend', 'qemu', '--gates-dir', join(root, 'g')]);
    expect(qemu.code).toBe(1);
    expect(qemu.stderr).toMatch(/^airlock gate: backend qemu cannot run here: .*the guest image [0-9a-f]{16} is not built \(run: node --import tsx server\/backends\/qemu\/build-image\.ts\)/);
    expect(qemu.stderr).toMatch(/airlock gate health shows every backend/);
    const firecracker = await cli(['gate', 'run', 'tests', '--workspace', workspace, '--backend', 'firecracker', '--gates-dir', join(root, 'g')]);
    expect(firecracker.code).toBe(1);
    expect(firecracker.stderr).toMatch(/backend firecracker cannot run here: no firecracker binary \(set AIRLOCK_FIRECRACKER or put firecracker on PATH\)/);
    // No gate run was started, so nothing was recorded.
    expect(existsSync(join(root, 'g/runs'))).toBe(false);
  });

  it('health: each backend, reachable or not, its version, why not and its details; --json', async () => {
    vi.stubEnv('AIRLOCK_VM_CACHE', join(root, 'empty-vm-cache'));
    vi.stubEnv('AIRLOCK_FIRECRACKER', join(root, 'no-such/firecracker'));
    const text = await cli(['gate', 'health']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^wasm {9}reachable {2}node \d+\.\d+\.\d+\n {2}startToExitMs: [\d.]+\n {2}tools: \d+\n/);
    // (Without QEMU installed its absence is the first reason; the image's follows.)
    expect(text.stdout).toMatch(/\nqemu {9}unreachable {2}\S+\n( {2}why not: .*\n)? {2}why not: the guest image [0-9a-f]{16} is not built \(run: node --import tsx server\/backends\/qemu\/build-image\.ts\)\n/);
    expect(text.stdout).toMatch(/\nfirecracker {2}unreachable {2}-\n {2}why not: no firecracker binary \(set AIRLOCK_FIRECRACKER or put firecracker on PATH\)\n(.|\n)* {2}jailer: absent: runs are not jailed\n/);
    const json = await cli(['gate', 'health', '--json']);
    const reports = JSON.parse(json.stdout) as Array<{ backend: string; reachable: boolean; reasons: string[] }>;
    expect(reports.map((report) => [report.backend, report.reachable])).toEqual([['wasm', true], ['qemu', false], ['firecracker', false]]);
    expect(reports[1]?.reasons.join('\n')).toMatch(/is not built/);
  });
});
