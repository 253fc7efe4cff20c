// executeAgent: one phase of an agent (docs/agents.md). The loop runs here, on the host; the
// tools run in the workspace (a sandbox unless `sandbox: 'none'`); every model call goes
// through the provider relay (relay.ts), which alone holds the provider keys. The sandbox's
// network policy is the phase's: strict (GitHub and the package registries, web search when
// asked) or open, above the SSRF floor either way; the GitHub token, when the host has one,
// is injected by the host's network layer for GitHub hosts under the phase's profile, and the
// search-provider keys (TAVILY_API_KEY, EXA_API_KEY, BRAVE_SEARCH_API_KEY) for their API hosts
// only in a phase that sets webSearch, so the sandbox sees only a placeholder.

import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { NetworkPolicy } from '../../src/host/network/policy.js';
import type { GithubProfile } from '../../src/host/network/github-profiles.js';
import type { SecretBinding } from '../../src/host/network/secrets.js';
import type { SandboxLimits } from '../../src/protocol/limits.js';
import type { AuditEvent } from '../../src/protocol/audit/schema.js';
import { AGENT_LIMITS } from '../../src/protocol/limits.js';
import { AgentEventLog, type AgentAuditSink, type AgentEvent } from './events.js';
import { costOf, parseModel, pricingOf, PROVIDERS, type Message, type ModelClient, type ModelRef, type Pricing, type ProviderName, type Usage, type Variant } from './model.js';
import { anthropicClient } from './providers/anthropic.js';
import { openaiClient } from './providers/openai.js';
import { startProviderRelay, type ProviderRelay, type RelayProvider } from './relay.js';
import { AGENT_TOOLS, runTool } from './tools.js';
import type { SandboxClient } from '../backends/contract.js';
import { openVmWorkspace } from './vm-tools.js';
import { assembleAgentsMd, openHostWorkspace, openSandboxWorkspace, type AgentWorkspace, type SandboxKind } from './workspace.js';

export interface ExecutorConfig {
  /** The agent's working directory on this machine (copied into the sandbox, and the result back). */
  cwd?: string;
  /** `anthropic/<model>`, `openai/<model>` or `openrouter/<vendor>/<model>`. */
  model?: string;
  /** Reasoning effort. */
  variant?: Variant;
  /** `wasm` (default): an Airlock sandbox. `vm`: each bash call in a fresh microVM (the qemu gate backend). `none`: UNSAFE, the host itself (local development). */
  sandbox?: SandboxKind;
  /** Where the JSONL event log (`<sessionId>.jsonl`) is written. */
  sessionsDir?: string;
  /** Open egress for this phase (any public host; the SSRF floor still holds). */
  unrestrictedEgress?: boolean;
  /** Let the sandbox reach the web-search providers (their keys injected by the host, never seen). */
  webSearch?: boolean;
  /** With webSearch, bind only this provider's key (default: each whose key the host has). */
  webSearchProvider?: WebSearchProvider;
  /** Its `*.md` files, in name order, become the workspace's AGENTS.md. */
  agentContextDir?: string;
  /** What the agent may change on GitHub (default `read`). */
  githubProfile?: GithubProfile;
  /** Model turns at most (default AGENT_LIMITS.maxTurns). */
  maxTurns?: number;
  /** The phase's time budget (default AGENT_LIMITS.timeBudgetMs, 30 min). */
  timeBudgetMs?: number;
  /** Each bash call's own time limit (default: the sandbox's timeoutMs). */
  toolTimeoutMs?: number;
  /** The sandbox's limits (docs/limits.md). */
  limits?: Partial<SandboxLimits>;
  /** Where each provider's requests go and its key (default: the real API, the key from the host environment). */
  providers?: Partial<Record<ProviderName, RelayProvider>>;
  /** Prices for costUsd when the model is not in the built-in table. */
  pricing?: Pricing;
  /** The system prompt (default: a short description of the workspace and tools). */
  system?: string;
}

export interface ExecutionResult {
  success: boolean;
  /** The agent's last text. */
  output: string;
  turns: number;
  error: string | null;
  durationMs: number;
  sessionId: string;
  costUsd: number | null;
  inputTokens: number;
  outputTokens: number;
  cacheTokens: number;
  /** end_turn, max_turns, time_budget, error, aborted (or the provider's own stop reason). */
  stopReason: string;
  /** The JSONL event log, when sessionsDir was given. */
  eventLog: string | null;
}

export interface ExecuteOptions {
  taskId?: string;
  onSessionId?: (sessionId: string) => void;
  /** Each event as it is written to the log. */
  onEvent?: (event: AgentEvent & { sessionId: string; timestamp: string }) => void;
  /** The audit trail (the server's context.audit, or any sink with its record()). */
  audit?: AgentAuditSink;
  /** The sandbox's own audit events (network decisions, refusals, runs), e.g. to the same log. */
  onSandboxAuditEvent?: (event: AuditEvent) => void;
  /** Ends the phase early (stopReason 'aborted'). */
  signal?: AbortSignal;
  /** A failure of an earlier attempt (the gate loop), put before the prompt. */
  priorFailure?: string;
  /** The backend of `sandbox: 'vm'` (default: the qemu backend, vm-tools.ts). */
  vmClient?: SandboxClient;
}

const DEFAULT_MODEL = 'anthropic/claude-sonnet-4-6';

export type WebSearchProvider = 'tavily' | 'exa' | 'brave';

/** Each search provider's key: the host variable it is read from, its API host and auth header. */
export const WEB_SEARCH_KEYS: Readonly<Record<WebSearchProvider, { env: string; host: string; header: string; template: string }>> = {
  tavily: { env: 'TAVILY_API_KEY', host: 'api.tavily.com', header: 'Authorization', template: 'Bearer ${TAVILY_API_KEY}' },
  exa: { env: 'EXA_API_KEY', host: 'api.exa.ai', header: 'x-api-key', template: '${EXA_API_KEY}' },
  brave: { env: 'BRAVE_SEARCH_API_KEY', host: 'api.search.brave.com', header: 'X-Subscription-Token', template: '${BRAVE_SEARCH_API_KEY}' },
};

/**
 * The search-provider keys of a phase that opts into web search, as secrets the host's network
 * layer adds (when: 'web-search') for the provider's API host only; none for any other phase.
 */
function webSearchSecrets(config: ExecutorConfig, env: NodeJS.ProcessEnv): SecretBinding[] {
  if (config.webSearch !== true) return [];
  const wanted = config.webSearchProvider;
  if (wanted !== undefined && !(wanted in WEB_SEARCH_KEYS)) throw new TypeError(`webSearchProvider: ${JSON.stringify(wanted)} is not one of ${Object.keys(WEB_SEARCH_KEYS).join(', ')}`);
  const names = wanted === undefined ? (Object.keys(WEB_SEARCH_KEYS) as WebSearchProvider[]) : [wanted];
  const out: SecretBinding[] = [];
  for (const provider of names) {
    const key = WEB_SEARCH_KEYS[provider];
    const value = env[key.env];
    if (value !== undefined && value !== '') out.push({ name: key.env, value, hosts: [key.host], header: key.header, template: key.template, when: 'web-search' });
  }
  return out;
}

/** The sandbox's network for a phase: never the providers (the relay speaks to them), never the relay. */
export function phasePolicy(config: ExecutorConfig, env: NodeJS.ProcessEnv): NetworkPolicy {
  const secrets: SecretBinding[] = [];
  const github = env.GITHUB_TOKEN ?? env.GH_TOKEN;
  if (github !== undefined && github !== '') secrets.push({ name: 'GITHUB_TOKEN', value: github, hosts: ['github.com', 'api.github.com', 'uploads.github.com'], header: 'Authorization', template: 'Bearer ${GITHUB_TOKEN}' });
  secrets.push(...webSearchSecrets(config, env));
  return {
    mode: config.unrestrictedEgress === true ? 'open' : 'strict',
    allowedHosts: ['github', 'package-registry', ...(config.webSearch === true ? ['web-search'] : [])],
    blockedHosts: ['provider'],
    githubProfile: config.githubProfile ?? 'read',
    webSearch: config.webSearch === true,
    secrets,
  };
}

/** Everything the host environment holds that the `none` workspace's bash must not inherit. */
function withoutKeys(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const hidden = new Set([...Object.values(PROVIDERS).map((p) => p.keyEnv), 'GITHUB_TOKEN', 'GH_TOKEN', 'AIRLOCK_MCP_TOKEN', ...Object.values(WEB_SEARCH_KEYS).map((k) => k.env)]);
  return Object.fromEntries(Object.entries(env).filter(([k]) => !hidden.has(k)));
}

function systemPrompt(workspace: AgentWorkspace, hasAgentsMd: boolean): string {
  return [
    `You are a coding agent working in ${workspace.root}${workspace.kind === 'none' ? '' : ', inside an Airlock sandbox'}.`,
    'Use the tools bash, read, write and edit to do the task; paths are relative to the working directory. When the task is done, answer with a short summary and no tool call.',
    hasAgentsMd ? 'Read AGENTS.md in the working directory first: it holds the project\'s instructions.' : '',
  ]
    .filter(Boolean)
    .join('\n');
}

function clientFor(ref: ModelRef, relay: ProviderRelay, variant: Variant | undefined): ModelClient {
  const options = { baseURL: `${relay.url}/${ref.provider}`, apiKey: relay.token, model: ref.model, maxRetries: AGENT_LIMITS.providerRetries, ...(variant === undefined ? {} : { variant }) };
  return PROVIDERS[ref.provider].wire === 'anthropic' ? anthropicClient(options) : openaiClient(options);
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? `provider answered ${status}: ${error.message}` : error.message;
}

export async function executeAgent(prompt: string, config: ExecutorConfig = {}, opts: ExecuteOptions = {}): Promise<ExecutionResult> {
  const started = Date.now();
  const sessionId = randomUUID();
  opts.onSessionId?.(sessionId);
  const modelSpec = config.model ?? DEFAULT_MODEL;
  const log = new AgentEventLog(sessionId, modelSpec, config.sessionsDir, opts.audit, opts.onEvent);
  const totals: Usage = { inputTokens: 0, outputTokens: 0, cacheTokens: 0 };
  let costUsd: number | null = 0;
  let turns = 0;
  let output = '';
  let relay: ProviderRelay | undefined;
  let workspace: AgentWorkspace | undefined;
  const budgetMs = config.timeBudgetMs ?? AGENT_LIMITS.timeBudgetMs;
  const budget = AbortSignal.timeout(budgetMs);
  const signal = opts.signal === undefined ? budget : AbortSignal.any([budget, opts.signal]);
  const finish = (success: boolean, stopReason: string, error: string | null): ExecutionResult => {
    if (error !== null) log.emit({ type: 'fatal_error', error, stopReason });
    const durationMs = Date.now() - started;
    log.ended({ success, stopReason, turns, error, costUsd, durationMs });
    return { success, output, turns, error, durationMs, sessionId, costUsd, ...totals, stopReason, eventLog: log.path ?? null };
  };
  let result: ExecutionResult;
  let keep = false;
  try {
    const ref = parseModel(modelSpec);
    const pricing = config.pricing ?? pricingOf(ref);
    const sandboxKind = config.sandbox ?? 'wasm';
    const cwd = resolve(config.cwd ?? process.cwd());
    const policy = phasePolicy(config, process.env);
    log.emit({ type: 'session', model: modelSpec, cwd, sandbox: sandboxKind, taskId: opts.taskId ?? null, profile: policy.githubProfile ?? null, egress: policy.mode ?? 'strict' });
    const agentsMd = await assembleAgentsMd(config.agentContextDir);
    workspace =
      sandboxKind === 'none'
        ? openHostWorkspace(cwd, withoutKeys(process.env), AGENT_LIMITS.toolOutputBytes)
        : sandboxKind === 'vm'
          ? await openVmWorkspace(cwd, {
              policy,
              ...(opts.vmClient === undefined ? {} : { client: opts.vmClient }),
              ...(agentsMd === undefined ? {} : { agentsMd }),
              ...(opts.audit === undefined ? {} : { onNetworkDecision: (decision) => opts.audit?.record({ type: 'network.decision', runId: null, ...decision }, { sessionId, source: 'host' }) }),
            })
          : await openSandboxWorkspace(cwd, { network: policy, ...(config.limits === undefined ? {} : { limits: config.limits }), ...(opts.onSandboxAuditEvent === undefined ? {} : { onAuditEvent: opts.onSandboxAuditEvent }), sessionId: `agent-${sessionId}` }, agentsMd);
    if (sandboxKind === 'none' && agentsMd !== undefined) await workspace.writeText('AGENTS.md', agentsMd);
    // The relay is the phase's gateway route to its provider: each request it carries is a
    // network decision on the audit trail, like the sandbox's own.
    relay = await startProviderRelay(config.providers ?? {}, process.env, opts.audit === undefined ? undefined : (decision) => opts.audit?.record({ type: 'network.decision', runId: null, ...decision }, { sessionId, source: 'host' }));
    const client = clientFor(ref, relay, config.variant);
    const system = config.system ?? systemPrompt(workspace, agentsMd !== undefined);
    const task = opts.priorFailure === undefined ? prompt : `${prompt}\n\nA previous attempt at this task failed the gate:\n${opts.priorFailure}\nFix what it reports.`;
    const messages: Message[] = [{ role: 'user', text: task }];
    log.emit({ type: 'message_end', turn: 0, message: { role: 'user', content: task } });
    const maxTurns = config.maxTurns ?? AGENT_LIMITS.maxTurns;
    const toolTimeoutMs = config.toolTimeoutMs ?? config.limits?.timeoutMs ?? 120_000;
    for (;;) {
      if (turns >= maxTurns) {
        result = finish(false, 'max_turns', `the agent used its ${maxTurns} turns (maxTurns) without finishing`);
        break;
      }
      signal.throwIfAborted();
      turns += 1;
      const reply = await client.turn({ system, messages, tools: AGENT_TOOLS, signal });
      messages.push({ role: 'assistant', text: reply.text, toolCalls: reply.toolCalls, raw: reply.raw });
      if (reply.text !== '') output = reply.text;
      totals.inputTokens += reply.usage.inputTokens;
      totals.outputTokens += reply.usage.outputTokens;
      totals.cacheTokens += reply.usage.cacheTokens;
      const turnCost = costOf(reply.usage, pricing);
      costUsd = costUsd === null || turnCost === null ? null : costUsd + turnCost;
      log.emit({ type: 'message_end', turn: turns, message: { role: 'assistant', content: { text: reply.text, toolCalls: reply.toolCalls.map((c) => ({ id: c.id, name: c.name, input: c.input ?? c.rawInput })), stopReason: reply.stopReason } } });
      log.emit({ type: 'usage_snapshot', turn: turns, ...reply.usage, costUsd: turnCost, total: { ...totals, costUsd } });
      if (reply.toolCalls.length === 0) {
        keep = true;
        result = reply.stopReason === 'max_tokens' ? finish(false, 'max_tokens', 'the model stopped at its output token limit') : finish(true, reply.stopReason, null);
        break;
      }
      const results = [];
      for (const call of reply.toolCalls) {
        const t0 = performance.now();
        const outcome = await runTool(call, workspace, { timeoutMs: toolTimeoutMs, signal });
        const durationMs = Math.round((performance.now() - t0) * 1000) / 1000;
        results.push({ id: call.id, name: call.name, ...outcome });
        log.emit({ type: 'tool_execution_end', turn: turns, toolCallId: call.id, toolName: call.name, isError: outcome.isError, durationMs, result: outcome.output });
        signal.throwIfAborted();
      }
      messages.push({ role: 'tool', results });
      keep = true;
    }
  } catch (error) {
    const stopReason = budget.aborted ? 'time_budget' : opts.signal?.aborted === true ? 'aborted' : 'error';
    const message = budget.aborted ? `the phase's time budget of ${budgetMs} ms (timeBudgetMs) ran out` : describeError(error);
    result = finish(false, stopReason, message);
  } finally {
    await relay?.close();
  }
  try {
    await workspace?.close(keep);
  } catch (error) {
    result = { ...result, success: false, error: `${result.error === null ? '' : `${result.error}; `}copying the workspace back to ${config.cwd ?? process.cwd()} failed: ${(error as Error).message}` };
  }
  await log.close();
  return result;
}
