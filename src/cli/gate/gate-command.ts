// `airlock gate`: run a gate over a workspace, check the backends, inspect or clean up gate
// runs. Exit codes of run: 0 passed, 1 failed, 11 escalated, 2 usage or configuration.

import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { BACKEND_NAMES, type BackendName, type SandboxClient } from '../../../server/backends/contract.js';
import { createSandboxClient } from '../../../server/backends/registry.js';
import { defaultGatesDir } from '../../../server/backends/run-dir.js';
import { BUILTIN_CATALOG, GateCatalogInvalid, loadCatalog, type GateDefinition } from '../../../server/gates/catalog.js';
import { readLedger, LedgerCorrupted } from '../../../server/gates/ledger.js';
import { commandRegenerator } from '../../../server/gates/regenerator.js';
import { GateRunner, EXIT_CODES, type GateOutcome } from '../../../server/gates/runner.js';
import { WorkspaceCommandMissing } from '../../../server/gates/workspace.js';
import { parsedCommand, type CliCommand, type CliContext } from '../command.js';
import { GATE_USAGE, parseGateArgs, type GateCommand } from './args.js';
import { queueHealth, queuedClient, runWorker } from './queue-commands.js';

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text);
}

function outcomeJson(outcome: GateOutcome): unknown {
  return {
    gateRunId: outcome.gateRunId, gate: outcome.gateId, outcome: outcome.outcome, exitCode: outcome.exitCode, reason: outcome.reason, ledger: outcome.ledgerPath,
    attempts: outcome.attempts.map((a) => ({ attempt: a.attempt, attemptId: a.attemptId, passed: a.passed, outcome: a.passed ? 'passed' : 'failed', failureSummary: a.failureSummary, signals: a.signals, sandboxRunId: a.sandboxRunId, vmSeconds: a.cost.vmSeconds })),
  };
}

async function runGate(command: Extract<GateCommand, { kind: 'run' }>, cli: CliContext): Promise<number> {
  let catalog;
  try {
    catalog = loadCatalog([BUILTIN_CATALOG, ...command.catalog]);
  } catch (error) {
    if (error instanceof GateCatalogInvalid) return cli.usageError(`gate catalog is invalid: ${error.message}`, 'gate');
    throw error;
  }
  const gate = catalog.get(command.gate);
  if (gate === undefined) return cli.usageError(`no gate '${command.gate}' (the catalog has: ${[...catalog.keys()].sort().join(', ')})`, 'gate');
  if (!existsSync(command.workspace) || !statSync(command.workspace).isDirectory()) return cli.usageError(`--workspace: ${command.workspace} is not a directory`, 'gate');
  const backend = command.backend ?? gate.backend;
  const queued = command.queue === undefined ? undefined : await queuedClient(command.queue, backend);
  try {
    return await runWith(command, cli, gate, backend, queued?.client ?? createSandboxClient(backend));
  } finally {
    await queued?.close();
  }
}

async function runWith(command: Extract<GateCommand, { kind: 'run' }>, cli: CliContext, gate: GateDefinition, backend: BackendName, client: SandboxClient): Promise<number> {
  const health = await client.health();
  if (!health.reachable) {
    // Checked before any attempt: nothing is recorded for a gate that cannot start.
    process.stderr.write(`airlock gate: backend ${backend} cannot run here: ${health.reasons.join('; ')}\n  (airlock gate health shows every backend; docs/gates.md says how to set up the VM backends)\n`);
    return EXIT_CODES.failed;
  }
  if (command.queue !== undefined && health.reasons.length > 0 && !command.json) process.stderr.write(`airlock gate: ${health.reasons.join('; ')}\n`);
  const gatesDir = command.gatesDir ?? defaultGatesDir();
  let outcome: GateOutcome;
  try {
    outcome = await new GateRunner({
      gate, workspace: command.workspace, client, gatesDir,
      ...(command.maxAttempts === undefined ? {} : { maxAttempts: command.maxAttempts }),
      ...(command.regenerate === undefined ? {} : { regenerate: commandRegenerator(command.regenerate) }),
      ...(command.base === undefined ? {} : { base: command.base }),
      onProgress: command.json ? undefined : (event) => {
        if (event.type === 'attempt-started') process.stderr.write(`gate ${gate.id}: attempt ${event.attempt} on ${backend}\n`);
        else if (event.type === 'sandbox') process.stderr.write(`  ${event.message}\n`);
        else if (event.type === 'attempt-completed') process.stderr.write(`  attempt ${event.attempt}: ${event.record.passed ? 'passed' : `failed: ${event.record.failureSummary ?? ''}`}\n`);
        else if (event.type === 'regenerating') process.stderr.write(`  regenerating for attempt ${event.attempt}\n`);
      },
    }).run();
  } catch (error) {
    if (error instanceof WorkspaceCommandMissing) return cli.usageError(error.message, 'gate');
    if (error instanceof LedgerCorrupted) {
      process.stderr.write(`airlock gate: the attempts ledger is corrupted: ${error.message}\n`);
      return EXIT_CODES.failed;
    }
    throw error;
  }
  print(command.json, outcomeJson(outcome), `gate ${outcome.gateId}: ${outcome.outcome}${outcome.reason === '' ? '' : ` (${outcome.reason})`}\nrun ${outcome.gateRunId}\nledger ${outcome.ledgerPath}\n`);
  return outcome.exitCode;
}

async function health(command: Extract<GateCommand, { kind: 'health' }>): Promise<number> {
  if (command.queue !== undefined) return queueHealth(command.queue, command.json);
  const reports = [];
  for (const name of BACKEND_NAMES) reports.push(await createSandboxClient(name).health());
  const text = reports
    .map((report) => `${report.backend.padEnd(12)} ${report.reachable ? 'reachable' : 'unreachable'}  ${report.version ?? '-'}${report.reasons.map((reason) => `\n  why not: ${reason}`).join('')}${Object.entries(report.details).map(([key, value]) => `\n  ${key}: ${value}`).join('')}`)
    .join('\n');
  print(command.json, reports, `${text}\n`);
  return reports.some((report) => report.reachable) ? 0 : 1;
}

function runDirOf(run: string, gatesDir: string): string {
  return isAbsolute(run) || run.includes('/') ? run : join(gatesDir, 'runs', run);
}

async function inspect(command: Extract<GateCommand, { kind: 'inspect' }>, cli: CliContext): Promise<number> {
  const dir = runDirOf(command.run, command.gatesDir ?? defaultGatesDir());
  if (!existsSync(join(dir, 'attempts.jsonl'))) return cli.usageError(`no gate run at ${dir}`, 'gate');
  let ledger;
  try {
    ledger = await readLedger(join(dir, 'attempts.jsonl'));
  } catch (error) {
    if (!(error instanceof LedgerCorrupted)) throw error;
    process.stderr.write(`airlock gate: ${error.message}\n`);
    return 1;
  }
  const lines = ledger.attempts.map((a) => `attempt ${a.attempt} ${a.passed ? 'passed' : 'failed'} (${a.cost.vmSeconds.toFixed(1)} s on ${a.backend}, run ${a.sandboxRunId ?? '-'})\n${a.signals.map((s) => `  ${s}`).join('\n')}`);
  if (ledger.escalation !== null) lines.push(`escalated after ${ledger.escalation.attempts} attempts: ${ledger.escalation.reason}`);
  print(command.json, { run: dir, ledger: join(dir, 'attempts.jsonl'), attempts: ledger.attempts, escalation: ledger.escalation }, `${lines.join('\n')}\n`);
  return 0;
}

function gc(command: Extract<GateCommand, { kind: 'gc' }>): number {
  const runs = join(command.gatesDir ?? defaultGatesDir(), 'runs');
  const cutoff = Date.now() - command.olderThanMs;
  let removed = 0;
  if (existsSync(runs)) {
    for (const entry of readdirSync(runs)) {
      const dir = join(runs, entry);
      if (statSync(dir).mtimeMs < cutoff) {
        rmSync(dir, { recursive: true, force: true });
        removed += 1;
      }
    }
  }
  process.stdout.write(`removed ${removed} gate run${removed === 1 ? '' : 's'} older than the cutoff from ${runs}\n`);
  return 0;
}

export const gateCommand: CliCommand = parsedCommand({
  name: 'gate',
  summary: 'run agent output through a gate (build, tests, trace, policy) in a sandbox or microVM',
  usage: GATE_USAGE,
  parse: parseGateArgs,
  async run(command, cli) {
    switch (command.kind) {
      case 'run':
        return runGate(command, cli);
      case 'health':
        return health(command);
      case 'worker':
        return runWorker(command);
      case 'inspect':
        return inspect(command, cli);
      case 'gc':
        return gc(command);
    }
  },
});
