// From a gate definition and an attempt to a SandboxSpec: the template with the attempt's
// overrides (the last one given holds for later attempts), the workspace's own commands —
// more verbose from attempt 2 — and the workspace copied in read-write.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseGate } from './catalog.js';
import { WORKSPACE_GUEST_PATH, buildSpec } from './spec-builder.js';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'airlock-spec-builder-'));
  writeFileSync(join(ws, 'pytest.ini'), '[pytest]\n');
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const gate = parseGate('tests.yaml', [
  'id: tests', 'description: d', 'backend: qemu', 'requiredSignals: [tests]',
  'spec:', '  timeBudgetSeconds: 300', '  memoryLimitMiB: 512', '  env: { CI: "1" }', '  phases: [{ name: test, command: test }]',
  'attempts:', '  "2": { env: { AIRLOCK_GATE_VERBOSE: "1" }, timeBudgetSeconds: 600 }', '',
].join('\n'));

describe('buildSpec', () => {
  it('attempt 1: the template, the workspace command, the workspace copied in rw', () => {
    const spec = buildSpec(gate, 1, ws, 'qemu');
    expect(spec).toMatchObject({
      label: 'tests-attempt-1', image: 'default', network: 'none', enableTrace: false, timeBudgetSeconds: 300, memoryLimitMiB: 512,
      copyIn: [{ hostPath: ws, guestPath: WORKSPACE_GUEST_PATH, mode: 'rw' }],
      env: { CI: '1', AIRLOCK_GATE_ATTEMPT: '1' },
      phases: [{ name: 'test', argv: ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider'] }],
    });
    expect(Object.isFrozen(spec)).toBe(true);
  });

  it('attempt 2 runs the more verbose command with the override merged over the template', () => {
    const spec = buildSpec(gate, 2, ws, 'qemu');
    expect(spec.phases[0]?.argv).toEqual(['python3', '-m', 'pytest', '-vv', '-p', 'no:cacheprovider']);
    expect(spec.env).toEqual({ CI: '1', AIRLOCK_GATE_VERBOSE: '1', AIRLOCK_GATE_ATTEMPT: '2' });
    expect([spec.timeBudgetSeconds, spec.memoryLimitMiB, spec.label]).toEqual([600, 512, 'tests-attempt-2']);
    expect(spec.specHash).not.toBe(buildSpec(gate, 1, ws, 'qemu').specHash);
  });

  it('an attempt past the catalog keeps the last override given', () => {
    const spec = buildSpec(gate, 3, ws, 'qemu');
    expect(spec.env).toEqual({ CI: '1', AIRLOCK_GATE_VERBOSE: '1', AIRLOCK_GATE_ATTEMPT: '3' });
    expect(spec.timeBudgetSeconds).toBe(600);
  });

  it("the wasm backend's image; a literal argv; trace on when the gate requires it", () => {
    const traced = parseGate('t.yaml', 'id: t\ndescription: d\nbackend: wasm\nrequiredSignals: [tests, trace]\nspec:\n  phases: [{ name: test, argv: [bash, -c, "true"] }]\n');
    const spec = buildSpec(traced, 2, ws, 'wasm');
    expect([spec.image, spec.enableTrace]).toEqual(['airlock', true]);
    expect(spec.phases[0]?.argv).toEqual(['bash', '-c', 'true']);
  });

  it('same gate, attempt and workspace: the same spec hash (the ledger can compare attempts)', () => {
    expect(buildSpec(gate, 1, ws, 'qemu').specHash).toBe(buildSpec(gate, 1, ws, 'qemu').specHash);
  });

  it('a workspace without the command is refused, naming it', () => {
    const empty = join(ws, 'empty');
    mkdirSync(empty);
    expect(() => buildSpec(gate, 1, empty, 'qemu')).toThrow(/no test command/);
  });
});
