// `airlock agent run`: one agent phase on this machine (docs/agents.md). The loop runs in this
// process, its tools in a sandbox holding a copy of the working directory (the result is
// copied back), its model calls through a relay in this process that alone reads the
// provider key from the environment. With --gate, the result goes through the gate runner
// and a failure goes back to the agent (three attempts; exit 11 on escalation).

import { parseArgs } from 'node:util';
import { GITHUB_PROFILES, type GithubProfile } from '../../host/network/github-profiles.js';
import { executeAgentWithGate } from '../../../server/agent/gate-loop.js';
import { executeAgent, type ExecuteOptions, type ExecutionResult, type ExecutorConfig } from '../../../server/agent/execute.js';
import { PROVIDER_NAMES, type ProviderName, type Variant } from '../../../server/agent/model.js';
import type { CliCommand, CliContext } from '../command.js';
import { openAuditLog } from '../run/audit-log.js';
import { listenerAuditSink } from '../../../server/agent/events.js';

const USAGE = `Usage: airlock agent run [options] "PROMPT"

Runs one agent phase (docs/agents.md): the model named by --model works in a sandbox holding
a copy of --cwd with the tools bash, read, write and edit; the result is copied back. The
provider key is read from this process's environment (ANTHROPIC_API_KEY, OPENAI_API_KEY,
OPENROUTER_API_KEY) by the relay and never enters the sandbox.

options:
  --model PROVIDER/MODEL   anthropic/…, openai/…, openrouter/VENDOR/MODEL (default anthropic/claude-sonnet-4-6)
  --profile P              GitHub profile: read (default), issues-write, review-write, repo-write
  --gate GATE              put the result through a gate (tests, build, strict); retried by the agent
  --cwd DIR                the working directory (default: this one)
  --variant V              reasoning effort: off, low, medium, high
  --sandbox KIND           wasm (default), vm (each bash call in a fresh qemu microVM) or none
                           (UNSAFE: the host itself, for development)
  --unrestricted-egress    open egress for this phase (any public host; the SSRF floor holds)
  --web-search             let the sandbox reach the web-search providers
  --agent-context DIR      its *.md files become the workspace's AGENTS.md
  --sessions-dir DIR       write the JSONL event log there
  --max-turns N            model turns at most (default 50)
  --time-budget-ms N       the phase's time budget (default 30 minutes)
  --provider-url NAME=URL  send a provider's requests to URL (a compatible endpoint)
  --audit FILE             append the audit events (the agent's and its sandbox's) to FILE
  --audit-key KEY          sign the log's checkpoints with KEY (default: the user's audit key)
  --json                   print the result as JSON
  -h, --help               show this help

exit status: 0 done (gate passed), 1 failed, 11 escalated by the gate, 2 usage
`;

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, not ${value}`);
  return n;
}

function config(values: ReturnType<typeof parse>['values']): ExecutorConfig {
  const profile = values.profile ?? 'read';
  if (!(GITHUB_PROFILES as readonly string[]).includes(profile)) throw new Error(`--profile must be one of ${GITHUB_PROFILES.join(', ')}, not ${profile}`);
  const variant = values.variant;
  if (variant !== undefined && !['off', 'low', 'medium', 'high'].includes(variant)) throw new Error(`--variant must be off, low, medium or high, not ${variant}`);
  const sandbox = values.sandbox ?? 'wasm';
  if (sandbox !== 'wasm' && sandbox !== 'vm' && sandbox !== 'none') throw new Error(`--sandbox must be wasm, vm or none, not ${sandbox}`);
  const providers: ExecutorConfig['providers'] = {};
  for (const entry of values['provider-url'] ?? []) {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq);
    if (eq <= 0 || !(PROVIDER_NAMES as readonly string[]).includes(name)) throw new Error(`--provider-url takes NAME=URL with NAME one of ${PROVIDER_NAMES.join(', ')}, not ${entry}`);
    providers[name as ProviderName] = { upstream: new URL(entry.slice(eq + 1)).href };
  }
  const maxTurns = positiveInt(values['max-turns'], '--max-turns');
  const timeBudgetMs = positiveInt(values['time-budget-ms'], '--time-budget-ms');
  return {
    githubProfile: profile as GithubProfile,
    sandbox,
    providers,
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
    ...(variant === undefined ? {} : { variant: variant as Variant }),
    ...(values['unrestricted-egress'] === true ? { unrestrictedEgress: true } : {}),
    ...(values['web-search'] === true ? { webSearch: true } : {}),
    ...(values['agent-context'] === undefined ? {} : { agentContextDir: values['agent-context'] }),
    ...(values['sessions-dir'] === undefined ? {} : { sessionsDir: values['sessions-dir'] }),
    ...(maxTurns === undefined ? {} : { maxTurns }),
    ...(timeBudgetMs === undefined ? {} : { timeBudgetMs }),
  };
}

function summary(result: ExecutionResult): string {
  const cost = result.costUsd === null ? 'cost unknown' : `$${result.costUsd.toFixed(4)}`;
  return `airlock agent: ${result.success ? 'done' : 'failed'} (${result.stopReason}) in ${result.turns} turns, ${(result.durationMs / 1000).toFixed(1)} s, ${result.inputTokens} in / ${result.outputTokens} out tokens, ${cost}; session ${result.sessionId}${result.error === null ? '' : `: ${result.error}`}\n`;
}

export const agentCommand: CliCommand = {
  name: 'agent',
  summary: 'run an agent phase in a sandbox (keys stay out of it)',
  usage: USAGE,
  async main(argv: string[], cli: CliContext): Promise<number> {
    if (argv[0] === '-h' || argv[0] === '--help') {
      process.stdout.write(USAGE);
      return 0;
    }
    if (argv[0] !== 'run') return cli.usageError(argv[0] === undefined ? 'missing subcommand: airlock agent run …' : `unknown subcommand ${argv[0]} (only: run)`, 'agent');
    let parsed: ReturnType<typeof parse>;
    let executor: ExecutorConfig;
    try {
      parsed = parse(argv.slice(1));
      executor = config(parsed.values);
    } catch (error) {
      return cli.usageError((error as Error).message, 'agent');
    }
    if (parsed.values.help === true) {
      process.stdout.write(USAGE);
      return 0;
    }
    const prompt = parsed.positionals.join(' ').trim();
    if (prompt === '') return cli.usageError('missing the prompt: airlock agent run [options] "PROMPT"', 'agent');
    if (executor.sandbox === 'none') process.stderr.write('airlock agent: --sandbox none: UNSAFE, the agent\'s commands run on this machine as you, with no isolation\n');
    const abort = new AbortController();
    const stop = (): void => abort.abort();
    process.once('SIGINT', stop);
    const log = parsed.values.audit === undefined ? undefined : await openAuditLog(parsed.values.audit, parsed.values['audit-key']);
    const auditSink = log === undefined ? undefined : listenerAuditSink(log.listener);
    const hooks: ExecuteOptions = { signal: abort.signal, ...(log === undefined || auditSink === undefined ? {} : { audit: auditSink, onSandboxAuditEvent: log.listener }) };
    try {
      const gate = parsed.values.gate;
      const phases: ExecutionResult[] = [];
      let exitCode: number;
      let gateLine = '';
      if (gate === undefined) {
        const result = await executeAgent(prompt, executor, hooks);
        phases.push(result);
        exitCode = result.success ? 0 : 1;
      } else {
        const loop = await executeAgentWithGate(prompt, executor, { ...hooks, gate });
        phases.push(...loop.phases);
        exitCode = loop.exitCode;
        if (loop.gate !== null) gateLine = `airlock agent: gate ${gate} ${loop.gate.outcome} after ${loop.gate.attempts.length} attempt(s)${loop.gate.reason === '' ? '' : `: ${loop.gate.reason}`}; ledger ${loop.gate.ledgerPath}\n`;
      }
      const last = phases.at(-1);
      if (parsed.values.json === true) process.stdout.write(`${JSON.stringify({ exitCode, phases }, null, 2)}\n`);
      else if (last !== undefined && last.output !== '') process.stdout.write(last.output.endsWith('\n') ? last.output : `${last.output}\n`);
      for (const phase of phases) process.stderr.write(summary(phase));
      process.stderr.write(gateLine);
      return exitCode;
    } catch (error) {
      process.stderr.write(`airlock agent: ${(error as Error).message}\n`);
      return 1;
    } finally {
      process.off('SIGINT', stop);
      auditSink?.flush();
      await log?.close();
    }
  },
};

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      profile: { type: 'string' },
      gate: { type: 'string' },
      cwd: { type: 'string' },
      variant: { type: 'string' },
      sandbox: { type: 'string' },
      'unrestricted-egress': { type: 'boolean' },
      'web-search': { type: 'boolean' },
      'agent-context': { type: 'string' },
      'sessions-dir': { type: 'string' },
      'max-turns': { type: 'string' },
      'time-budget-ms': { type: 'string' },
      'provider-url': { type: 'string', multiple: true },
      audit: { type: 'string' },
      'audit-key': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
}
