// `airlock gate` through the CLI entry (main), on the wasm backend: exit codes and --json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../main.js';

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('airlock gate', () => {
  let root: string;
  let workspace: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'airlock-gate-cli-'));
    workspace = join(root, 'ws');
    mkdirSync(join(workspace, '.airlock'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

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

  it('gc --older-than removes old runs only', async () => {
    mkdirSync(join(root, 'g/runs/old'), { recursive: true });
    const result = await cli(['gate', 'gc', '--older-than', '7d', '--gates-dir', join(root, 'g')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/removed 0 gate runs/);
    expect((await cli(['gate', 'gc', '--older-than', 'soon'])).code).toBe(2);
  });
});
