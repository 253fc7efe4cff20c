// The agents service (docs/agents.md): agent phases run by the server, which alone holds the
// provider keys (its environment, read by each phase's relay). For programs, not pages: a
// bearer token (agents.tokenFile or AIRLOCK_AGENTS_TOKEN); without one the routes answer 503.
//   POST /api/agents/runs {prompt, workspace, model?, variant?, githubProfile?, gate?,
//        unrestrictedEgress?, webSearch?, maxTurns?, timeBudgetMs?}  → 202 {sessionId}
//   GET  /api/agents/runs/:id  → {state: running|done, result?, phases?, gate?, exitCode?}
// A phase works on a directory under agents.workspaces only (a caller must not name any
// directory of the server's machine); its events go to the server's audit trail (source
// 'agent') and, with agents.sessionsDir, to a JSONL log. Past agents.maxRuns running phases a
// new one is refused with 503 naming the limit.

import { realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { FastifyReply } from 'fastify';
import { GITHUB_PROFILES, type GithubProfile } from '../../src/host/network/github-profiles.js';
import { AGENT_LIMITS } from '../../src/protocol/limits.js';
import { bearerMatches, configuredToken } from '../bearer-token.js';
import type { ServerService } from '../service.js';
import { executeAgent, type ExecuteOptions, type ExecutionResult, type ExecutorConfig } from './execute.js';
import { executeAgentWithGate } from './gate-loop.js';
import type { Variant } from './model.js';

export const AGENT_RUNS_PATH = '/api/agents/runs';

interface RunRecord {
  state: 'running' | 'done';
  phases: ExecutionResult[];
  exitCode?: number;
  gate?: { outcome: string; attempts: number; reason: string; ledgerPath: string } | null;
  error?: string;
}

const VARIANTS = ['off', 'low', 'medium', 'high'];

class AgentRequestError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

function fail(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).send({ message });
}

function optional<T>(value: unknown, name: string, check: (v: unknown) => boolean, what: string): T | undefined {
  if (value === undefined) return undefined;
  if (!check(value)) throw new AgentRequestError(400, `${name} must be ${what}`);
  return value as T;
}

const positive = (v: unknown): boolean => Number.isInteger(v) && (v as number) > 0;

export const agentService: ServerService = {
  name: 'agents',
  register(app, context) {
    const token = configuredToken(process.env.AIRLOCK_AGENTS_TOKEN, context.config.agents.tokenFile);
    const { workspaces, sessionsDir, maxRuns, providers } = context.config.agents;
    const runs = new Map<string, RunRecord>();
    let running = 0;
    const aborts = new Set<AbortController>();
    app.addHook('onClose', async () => {
      for (const abort of aborts) abort.abort();
    });

    app.addHook('onRequest', async (request, reply) => {
      if (token === undefined) return fail(reply, 503, "agent runs are off: give the server a token (agents.tokenFile, AIRLOCK_AGENTS_TOKEN_FILE or AIRLOCK_AGENTS_TOKEN)");
      if (!bearerMatches(request, token)) return fail(reply.header('www-authenticate', 'Bearer'), 401, "missing or wrong bearer token (Authorization: Bearer <the server's agents token>)");
      return undefined;
    });
    app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => fail(reply, error.statusCode ?? 500, error.message));

    app.post(AGENT_RUNS_PATH, { bodyLimit: 1024 * 1024 }, async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (typeof body.prompt !== 'string' || body.prompt.trim() === '') throw new AgentRequestError(400, 'prompt must be a non-empty string');
      if (workspaces === undefined) throw new AgentRequestError(403, "agent runs need a workspace root: set agents.workspaces in the server's configuration (or AIRLOCK_AGENTS_WORKSPACES)");
      if (typeof body.workspace !== 'string') throw new AgentRequestError(400, 'workspace must be a directory under the workspace root');
      let root: string;
      let cwd: string;
      try {
        root = realpathSync(workspaces);
      } catch {
        throw new AgentRequestError(500, `the workspace root agents.workspaces (${workspaces}) does not exist on the server`);
      }
      try {
        cwd = realpathSync(join(root, body.workspace));
      } catch {
        throw new AgentRequestError(400, `no workspace ${JSON.stringify(body.workspace)} under the workspace root`);
      }
      if (cwd === root || !cwd.startsWith(root + sep)) throw new AgentRequestError(400, 'workspace must be a directory under the workspace root');
      const profile = optional<GithubProfile>(body.githubProfile, 'githubProfile', (v) => (GITHUB_PROFILES as readonly unknown[]).includes(v), `one of ${GITHUB_PROFILES.join(', ')}`);
      const variant = optional<Variant>(body.variant, 'variant', (v) => VARIANTS.includes(v as string), VARIANTS.join(', '));
      const model = optional<string>(body.model, 'model', (v) => typeof v === 'string', 'provider/model');
      const gate = optional<string>(body.gate, 'gate', (v) => typeof v === 'string', 'a gate id');
      const maxTurns = optional<number>(body.maxTurns, 'maxTurns', positive, 'a positive whole number');
      const timeBudgetMs = optional<number>(body.timeBudgetMs, 'timeBudgetMs', (v) => positive(v) && (v as number) <= AGENT_LIMITS.timeBudgetMs * 4, `a positive whole number of milliseconds, at most ${AGENT_LIMITS.timeBudgetMs * 4}`);
      if (running >= maxRuns) throw new AgentRequestError(503, `the server already runs ${running} agent phases (agents.maxRuns = ${maxRuns}); try again later`);
      const config: ExecutorConfig = {
        cwd,
        githubProfile: profile ?? 'read',
        unrestrictedEgress: body.unrestrictedEgress === true,
        webSearch: body.webSearch === true,
        ...(providers === undefined ? {} : { providers }),
        ...(sessionsDir === undefined ? {} : { sessionsDir }),
        ...(model === undefined ? {} : { model }),
        ...(variant === undefined ? {} : { variant }),
        ...(maxTurns === undefined ? {} : { maxTurns }),
        ...(timeBudgetMs === undefined ? {} : { timeBudgetMs }),
      };
      const abort = new AbortController();
      aborts.add(abort);
      let first = '';
      const record: RunRecord = { state: 'running', phases: [] };
      const options: ExecuteOptions = {
        signal: abort.signal,
        audit: context.audit,
        onSessionId: (id) => {
          if (first === '') {
            first = id;
            runs.set(id, record);
            if (runs.size > AGENT_LIMITS.serverResultsKept) runs.delete(runs.keys().next().value as string);
          }
        },
      };
      running += 1;
      const work = gate === undefined
        ? executeAgent(body.prompt, config, options).then((result) => {
            record.phases.push(result);
            record.exitCode = result.success ? 0 : 1;
          })
        : executeAgentWithGate(body.prompt, config, { ...options, gate }).then((loop) => {
            record.phases.push(...loop.phases);
            record.exitCode = loop.exitCode;
            record.gate = loop.gate === null ? null : { outcome: loop.gate.outcome, attempts: loop.gate.attempts.length, reason: loop.gate.reason, ledgerPath: loop.gate.ledgerPath };
          });
      void work
        .catch((error: unknown) => {
          record.error = (error as Error).message;
          record.exitCode = 1;
        })
        .finally(() => {
          record.state = 'done';
          running -= 1;
          aborts.delete(abort);
        });
      // executeAgent names the session before its first await.
      return reply.code(202).send({ sessionId: first });
    });

    app.get<{ Params: { id: string } }>(`${AGENT_RUNS_PATH}/:id`, async (request, reply) => {
      const record = runs.get(request.params.id);
      if (record === undefined) return fail(reply, 404, `no agent run ${request.params.id} (or it is too old to be kept)`);
      return record;
    });
  },
};
