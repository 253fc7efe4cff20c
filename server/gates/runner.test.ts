// The runner against the real wasm backend (fast), and scripted clients for the failure
// table's rows a real run cannot stage cheaply (a backend that is unreachable or dies
// mid-run, a flaky test, a new endpoint in the trace).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecuteOptions, SandboxClient, SandboxHealth, SandboxRun, SandboxSpec } from '../backends/contract.js';
import { scratchGateWorkspace } from '../../tests/helpers/gate-workspace.js';
import { runOnDisk } from '../../tests/helpers/sandbox-run.js';
import { SandboxBackendUnavailable, SandboxRunFailed } from '../backends/errors.js';
import { QemuSandboxClient } from '../backends/qemu/qemu-client.js';
import { WasmSandboxClient } from '../backends/wasm/wasm-client.js';
import { parseGate, type GateDefinition } from './catalog.js';
import { readLedger } from './ledger.js';
import { GateRunner } from './runner.js';
import type { AuditDraft } from '../../src/protocol/audit/schema.js';

function gate(yaml: string): GateDefinition {
  return parseGate('inline.yaml', `id: t\ndescription: d\nbackend: wasm\n${yaml}`);
}
const TESTS_GATE = gate('requiredSignals: [tests]\nspec:\n  timeBudgetSeconds: 20\n  memoryLimitMiB: 256\n  phases: [{ name: test, command: test }]\n');

describe('GateRunner', () => {
  let root: string;
  let workspace: string;
  beforeEach(() => {
    ({ root, workspace } = scratchGateWorkspace('airlock-runner-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('exit criterion: fails on attempt 1, passes on attempt 2 after the regenerator fixes it', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "grep -q fixed value.txt || { echo \\"not ok 1 - value is $(cat value.txt)\\"; exit 1; }"\n');
    writeFileSync(join(workspace, 'value.txt'), 'broken\n');
    const seen: string[] = [];
    const outcome = await new GateRunner({
      gate: TESTS_GATE, workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates'),
      regenerate: async (context) => {
        seen.push(context.priorFailure);
        writeFileSync(join(context.workspace, 'value.txt'), 'fixed\n');
      },
    }).run();
    expect(outcome.outcome).toBe('passed');
    expect(outcome.exitCode).toBe(0);
    expect(seen).toEqual(['tests: 1 of 1 failed (tap); first: value is broken']);
    const ledger = await readLedger(outcome.ledgerPath);
    expect(ledger.attempts).toHaveLength(2);
    const [first, second] = ledger.attempts;
    expect(first?.attemptId).not.toBe(second?.attemptId);
    expect([first?.passed, second?.passed]).toEqual([false, true]);
    expect(first?.failureSummary).toBe('tests: 1 of 1 failed (tap); first: value is broken');
    expect(second?.priorFailureSummary).toBe(first?.failureSummary);
    expect(first?.cost.vmSeconds).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(outcome.runDir, 'manifest.json'), 'utf8')).outcome).toBe('passed');
  });

  it('emits every audit event of the run, in order, to the listener and on the ledger chain', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "echo always broken; exit 1"\n');
    const quick = gate('requiredSignals: [tests]\nretry: { maxAttempts: 2 }\nspec:\n  timeBudgetSeconds: 20\n  phases: [{ name: test, command: test }]\n');
    const drafts: AuditDraft[] = [];
    const outcome = await new GateRunner({ gate: quick, workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates'), audit: (draft) => drafts.push(draft) }).run();
    const attempt = ['gate.attempt_started', 'sandbox.spec_built', 'sandbox.run_started', 'sandbox.run_completed', 'gate.attempt_completed'];
    expect(drafts.map((d) => d.type)).toEqual([...attempt, ...attempt, 'gate.escalate']);
    const started = drafts.find((d) => d.type === 'sandbox.run_started');
    expect(started).toMatchObject({ backend: 'wasm', sandboxRunId: outcome.attempts[0]?.sandboxRunId, specHash: outcome.attempts[0]?.specHash });
    expect(drafts.find((d) => d.type === 'sandbox.run_completed')).toMatchObject({ exitCode: 1, sandboxRunId: outcome.attempts[0]?.sandboxRunId });
    expect(drafts.at(-1)).toMatchObject({ type: 'gate.escalate', gateRunId: outcome.gateRunId, attempts: 2 });
    // The ledger holds the same events after its chain start, each checked against the schema.
    const lines = readFileSync(outcome.ledgerPath, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: { type: string; source: string } }).event);
    expect(lines.slice(1).map((event) => event.type)).toEqual(drafts.map((d) => d.type));
    expect((await readLedger(outcome.ledgerPath)).attempts).toHaveLength(2);
  });

  it('a timeout and an OOM each leave their audit event', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "while :; do :; done"\n');
    const quick = gate('requiredSignals: [tests]\nspec:\n  timeBudgetSeconds: 1\n  phases: [{ name: test, command: test }]\n');
    const drafts: AuditDraft[] = [];
    await new GateRunner({ gate: quick, workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates'), audit: (draft) => drafts.push(draft) }).run();
    expect(drafts.find((d) => d.type === 'sandbox.timed_out')).toMatchObject({ backend: 'wasm', timeBudgetMs: 1000 });
    // A real out-of-memory run: awk grows until an allocation fails at the 64 MiB limit, which
    // the wasm backend reports as killedByOom (the qemu backend's cgroup OOM is in the VM stage).
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "awk \'BEGIN { while (1) a[i++] = sprintf(\\"%10000s\\", \\"\\") }\'"\n');
    const hungry = gate('requiredSignals: [tests]\nspec:\n  timeBudgetSeconds: 120\n  memoryLimitMiB: 64\n  phases: [{ name: test, command: test }]\n');
    const oomDrafts: AuditDraft[] = [];
    const oom = await new GateRunner({ gate: hungry, workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates'), audit: (draft) => oomDrafts.push(draft) }).run();
    expect([oom.outcome, oom.exitCode]).toEqual(['failed', 1]);
    expect(oomDrafts.find((d) => d.type === 'sandbox.oom_killed')).toMatchObject({ backend: 'wasm', sandboxRunId: oom.attempts[0]?.sandboxRunId, memoryLimitBytes: 64 * 1024 * 1024 });
  });

  it('failure table: a policy violation is retried only when the gate says policy.retryAllowed', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "true"\n');
    writeFileSync(join(workspace, '.env'), 'TOKEN=x\n');
    const policyGate = (retryAllowed: boolean): GateDefinition =>
      gate(`requiredSignals: [policy]\nretry: { maxAttempts: 2, retryable: [tests] }\npolicy: { forbiddenPaths: [".env"], retryAllowed: ${retryAllowed} }\nspec:\n  phases: [{ name: test, command: test }]\n`);
    const strict = await new GateRunner({ gate: policyGate(false), workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates') }).run();
    expect([strict.outcome, strict.exitCode, strict.attempts.length]).toEqual(['escalated', 11, 1]);
    expect(strict.reason).toBe('not retryable: policy: forbidden path .env (.env)');
    const lenient = await new GateRunner({ gate: policyGate(true), workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates') }).run();
    expect([lenient.outcome, lenient.exitCode, lenient.attempts.length]).toEqual(['escalated', 11, 2]);
    expect(lenient.attempts.map((a) => a.retryable)).toEqual([true, true]);
  });

  it('failure table: a new network endpoint in the trace escalates at once, naming it', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "true"\n');
    writeFileSync(join(workspace, '.airlock/trace-baseline.json'), JSON.stringify({ entries: ['exec /usr/bin/node', 'connect 10.0.2.100:3128'] }));
    const traced = gate('requiredSignals: [tests, trace]\nspec:\n  enableTrace: true\n  phases: [{ name: test, command: test }]\ntrace: { baseline: .airlock/trace-baseline.json }\n');
    const run = runOnDisk(join(root, 'fake-runs'), {
      phase: { name: 'test', exitCode: 0, stdout: 'ok 1 - fine\n1..1\n' },
      trace: [{ kind: 'exec', path: '/usr/bin/node', argv: ['node', 'test.js'] }, { kind: 'connect', host: '10.0.2.100', port: 3128 }, { kind: 'connect', host: '198.51.100.7', port: 443 }],
    });
    const outcome = await new GateRunner({ gate: traced, workspace, client: returning(run), gatesDir: join(root, 'gates') }).run();
    expect([outcome.outcome, outcome.exitCode, outcome.attempts.length]).toEqual(['escalated', 11, 1]);
    expect(outcome.reason).toBe('not retryable: trace: 1 not in the baseline: connect 198.51.100.7:443');
    expect(outcome.attempts[0]?.signals).toEqual(['tests:passed', 'trace:failed: 1 not in the baseline: connect 198.51.100.7:443']);
  });

  it('failure table: a cost entry that cannot be written is a warning; the attempt records emissionError and the gate goes on', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "echo ok 1 - fine"\n');
    const gateRunId = '0190a000-0000-7000-8000-000000000001';
    mkdirSync(join(root, 'gates/runs', gateRunId, 'costs.jsonl'), { recursive: true });
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      const outcome = await new GateRunner({ gate: TESTS_GATE, workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates'), gateRunId }).run();
      expect([outcome.outcome, outcome.exitCode]).toEqual(['passed', 0]);
      expect(outcome.attempts[0]?.cost.emissionError).toBe(1);
      expect((await readLedger(outcome.ledgerPath)).attempts[0]?.cost.emissionError).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.some((message) => message.startsWith('gate cost entry not written: EISDIR'))).toBe(true);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a failure identical three times escalates (exit 11) with three ledger entries and an escalation', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "echo always broken; exit 1"\n');
    const outcome = await new GateRunner({ gate: TESTS_GATE, workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates') }).run();
    expect(outcome.outcome).toBe('escalated');
    expect(outcome.exitCode).toBe(11);
    expect(outcome.reason).toMatch(/^3 attempts failed identically/);
    const ledger = await readLedger(outcome.ledgerPath);
    expect(ledger.attempts.map((a) => a.passed)).toEqual([false, false, false]);
    expect(ledger.escalation?.attempts).toBe(3);
  });

  it('a workspace without the command the gate needs is refused before any attempt', async () => {
    await expect(new GateRunner({ gate: TESTS_GATE, workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates') }).run()).rejects.toThrow(/no test command/);
  });

  it('a timeout is not retried and escalates; with timeoutRetryable it is', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "while :; do :; done"\n');
    const quick = gate('requiredSignals: [tests]\nspec:\n  timeBudgetSeconds: 1\n  phases: [{ name: test, command: test }]\n');
    const outcome = await new GateRunner({ gate: quick, workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates') }).run();
    expect(outcome.exitCode).toBe(11);
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.reason).toMatch(/not retryable: tests: timed out/);
    const retried = gate('requiredSignals: [tests]\nretry: { maxAttempts: 2, timeoutRetryable: true }\nspec:\n  timeBudgetSeconds: 1\n  phases: [{ name: test, command: test }]\n');
    const again = await new GateRunner({ gate: retried, workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates') }).run();
    expect(again.attempts).toHaveLength(2);
  });

  it('failure table: a failed build is retryable and the next attempt rebuilds the regenerated workspace', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'build: "test -f fixed.h || { echo \\"main.c:1: error: fixed.h: No such file\\" >&2; exit 2; }; echo built"\n');
    const buildGate = gate('requiredSignals: [build]\nretry: { retryable: [build] }\nspec:\n  timeBudgetSeconds: 20\n  phases: [{ name: build, command: build }]\n');
    const outcome = await new GateRunner({
      gate: buildGate, workspace, client: new WasmSandboxClient(), gatesDir: join(root, 'gates'),
      regenerate: async (context) => writeFileSync(join(context.workspace, 'fixed.h'), '#define FIXED 1\n'),
    }).run();
    expect([outcome.outcome, outcome.exitCode, outcome.attempts.length]).toEqual(['passed', 0, 2]);
    const [first, second] = outcome.attempts;
    expect(first).toMatchObject({ passed: false, retryable: true, failureSummary: 'build: build exited 2: main.c:1: error: fixed.h: No such file' });
    expect(second?.signals).toEqual(['build:passed']);
    // Each attempt is its own sandbox run: the second built again, from the fixed workspace.
    expect(second?.sandboxRunId).not.toBe(first?.sandboxRunId);
    const rebuilt = JSON.parse(readFileSync(join(outcome.runDir, 'sandbox', second?.sandboxRunId ?? '', 'run.json'), 'utf8')) as SandboxRun;
    expect(rebuilt.phases.map((phase) => [phase.name, phase.exitCode])).toEqual([['build', 0]]);
    expect(readFileSync(rebuilt.phases[0]?.stdoutPath ?? '', 'utf8')).toBe('built\n');
  });

  it('failure table: a flaky test fails attempt 1; attempt 2 runs the more verbose command and passes', async () => {
    // A unittest workspace (tests/test*.py); the scripted backend's first run fails, its second passes.
    mkdirSync(join(workspace, 'tests'));
    writeFileSync(join(workspace, 'tests/testflaky.py'), 'import unittest\n');
    const flaky = gate('requiredSignals: [tests]\nspec:\n  phases: [{ name: test, command: test }]\nattempts:\n  "2": { env: { AIRLOCK_GATE_VERBOSE: "1" } }\n');
    const runs = [
      runOnDisk(join(root, 'fake-runs'), { phase: { name: 'test', exitCode: 1, stderr: 'F\n======\nFAIL: test_timing (testflaky.Flaky.test_timing)\n----\nRan 1 test in 0.01s\n\nFAILED (failures=1)\n' } }),
      runOnDisk(join(root, 'fake-runs'), { phase: { name: 'test', exitCode: 0, stderr: 'test_timing (testflaky.Flaky.test_timing) ... ok\n\n----\nRan 1 test in 0.01s\n\nOK\n' } }),
    ];
    const client = inTurn(runs);
    const outcome = await new GateRunner({ gate: flaky, workspace, client, gatesDir: join(root, 'gates') }).run();
    expect([outcome.outcome, outcome.attempts.map((a) => a.passed)]).toEqual(['passed', [false, true]]);
    expect(outcome.attempts[0]).toMatchObject({ retryable: true, failureSummary: expect.stringMatching(/^tests: 1 of 1 failed \(unittest\)/) });
    expect(client.specs.map((spec) => spec.phases[0]?.argv)).toEqual([
      ['python3', '-m', 'unittest', 'discover', '-s', 'tests', '-q'],
      ['python3', '-m', 'unittest', 'discover', '-s', 'tests', '-v'],
    ]);
    expect(client.specs[1]?.env).toMatchObject({ AIRLOCK_GATE_VERBOSE: '1', AIRLOCK_GATE_ATTEMPT: '2' });
  });

  it('failure table: a guest image that is not there is its own failure (exit 1, not retried), naming the build', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "true"\n');
    const previous = process.env.AIRLOCK_VM_CACHE;
    process.env.AIRLOCK_VM_CACHE = join(root, 'empty-vm-cache');
    try {
      const outcome = await new GateRunner({ gate: TESTS_GATE, workspace, client: new QemuSandboxClient(), gatesDir: join(root, 'gates') }).run();
      expect([outcome.outcome, outcome.exitCode, outcome.attempts.length]).toEqual(['failed', 1, 1]);
      expect(outcome.attempts[0]?.retryable).toBe(false);
      expect(outcome.reason).toMatch(/^image unavailable: backend qemu cannot run here: the guest image [0-9a-f]{16} is not built \(run: node --import tsx server\/backends\/qemu\/build-image\.ts\)$/);
    } finally {
      if (previous === undefined) delete process.env.AIRLOCK_VM_CACHE;
      else process.env.AIRLOCK_VM_CACHE = previous;
    }
  });

  it('an unreachable backend fails the gate at once (exit 1); a run that dies counts as an attempt and is retried', async () => {
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "true"\n');
    const unreachable = scripted([new SandboxBackendUnavailable('qemu', ['no image'])]);
    const down = await new GateRunner({ gate: TESTS_GATE, workspace, client: unreachable, gatesDir: join(root, 'gates') }).run();
    expect([down.outcome, down.exitCode, down.attempts.length]).toEqual(['failed', 1, 1]);
    expect(down.reason).toMatch(/backend unreachable: backend qemu cannot run here: no image/);
    const dies = scripted([new SandboxRunFailed('the guest ended without a result'), new SandboxRunFailed('again'), new SandboxRunFailed('and again')]);
    const out = await new GateRunner({ gate: TESTS_GATE, workspace, client: dies, gatesDir: join(root, 'gates') }).run();
    expect([out.outcome, out.exitCode, out.attempts.length]).toEqual(['escalated', 11, 3]);
  });
});

/** A client whose execute() throws the given errors in turn (infrastructure failures). */
function scripted(errors: Error[]): SandboxClient {
  let call = 0;
  return {
    backend: 'qemu',
    async execute(_spec: SandboxSpec): Promise<SandboxRun> {
      throw errors[Math.min(call++, errors.length - 1)];
    },
    async health(): Promise<SandboxHealth> {
      return { backend: 'qemu', reachable: false, version: null, reasons: ['scripted'], details: {} };
    },
  };
}

/** A client whose execute() returns the given runs in turn (the last one again), keeping each spec. */
function inTurn(runs: SandboxRun[]): SandboxClient & { specs: SandboxSpec[] } {
  const specs: SandboxSpec[] = [];
  return {
    backend: 'qemu',
    specs,
    async execute(spec: SandboxSpec, options: ExecuteOptions = {}): Promise<SandboxRun> {
      const run = runs[Math.min(specs.length, runs.length - 1)] as SandboxRun;
      specs.push(spec);
      options.onStarted?.({ runId: run.runId });
      return { ...run, spec };
    },
    async health(): Promise<SandboxHealth> {
      return { backend: 'qemu', reachable: true, version: 'scripted', reasons: [], details: {} };
    },
  };
}

/** A client whose execute() returns `run` (with the spec it was given) every time. */
function returning(run: SandboxRun): SandboxClient {
  return {
    backend: run.backend,
    async execute(spec: SandboxSpec, options: ExecuteOptions = {}): Promise<SandboxRun> {
      options.onStarted?.({ runId: run.runId });
      return { ...run, spec };
    },
    async health(): Promise<SandboxHealth> {
      return { backend: run.backend, reachable: true, version: 'scripted', reasons: [], details: {} };
    },
  };
}
