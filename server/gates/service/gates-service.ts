// The gates service: pages start gate runs, follow their progress and read their results.
//   POST /api/gates/runs {gate, workspace, backend?}  → 202 {gateRunId}
//   GET  /api/gates/runs                              → recent runs (manifests)
//   GET  /api/gates/runs/:id                          → manifest, attempts (the verified ledger), progress
//   GET  /api/gates/runs/:id/events                   → Server-Sent Events: progress until the run ends
// A page may gate only workspaces under the configured root, gates.workspaces (or
// $AIRLOCK_GATES_WORKSPACES): a page must not name any directory of the server's machine.
// Runs live in gates.dir (or $AIRLOCK_GATES_DIR), by default the CLI's gates directory.

import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { BACKEND_NAMES, type BackendName } from '../../backends/contract.js';
import { createSandboxClient } from '../../backends/registry.js';
import { defaultGatesDir } from '../../backends/run-dir.js';
import type { ServerService, ServiceContext } from '../../service.js';
import { BUILTIN_CATALOG, loadCatalog } from '../catalog.js';
import { readLedger } from '../ledger.js';
import { GateRunner, type GateProgress } from '../runner.js';
import { remoteClientFor } from '../../queue/index.js';
import { placementsOf } from '../../queue/placement.js';

export const GATES_RUNS_PATH = '/api/gates/runs';

class GateRequestError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

interface LiveRun {
  events: GateProgress[];
  done: boolean;
  listeners: Set<(event: GateProgress) => void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function workspaceRoot(configured: string | undefined): string {
  if (configured === undefined) throw new GateRequestError(403, "gate runs from pages need a workspace root: set gates.workspaces in the server's configuration (or AIRLOCK_GATES_WORKSPACES)");
  try {
    return realpathSync(configured);
  } catch {
    throw new GateRequestError(500, `the workspace root gates.workspaces (${configured}) does not exist on the server`);
  }
}

export function registerGateRoutes(app: FastifyInstance, context: ServiceContext, gatesDir: string = context.config.gates.dir ?? defaultGatesDir()): void {
  const live = new Map<string, LiveRun>();
  const catalog = loadCatalog([BUILTIN_CATALOG]);
  // With a queue configured (server/queue), runs go to remote workers; else in-process.
  const clientFor = (backend: BackendName) => remoteClientFor(context, backend) ?? createSandboxClient(backend);

  app.post(GATES_RUNS_PATH, { onRequest: context.pageOnly, bodyLimit: 16 * 1024 }, async (request, reply) => {
    const body = (request.body ?? {}) as { gate?: unknown; workspace?: unknown; backend?: unknown };
    const gate = typeof body.gate === 'string' ? catalog.get(body.gate) : undefined;
    if (gate === undefined) throw new GateRequestError(400, `gate must be one of ${[...catalog.keys()].sort().join(', ')}`);
    if (body.backend !== undefined && !(BACKEND_NAMES as readonly unknown[]).includes(body.backend)) throw new GateRequestError(400, `backend must be one of ${BACKEND_NAMES.join(', ')}`);
    if (typeof body.workspace !== 'string') throw new GateRequestError(400, 'workspace must be a directory under the workspace root');
    const root = workspaceRoot(context.config.gates.workspaces);
    let workspace: string;
    try {
      workspace = realpathSync(join(root, body.workspace));
    } catch {
      throw new GateRequestError(400, `no workspace ${JSON.stringify(body.workspace)} under the workspace root`);
    }
    if (workspace !== root && !workspace.startsWith(root + sep)) throw new GateRequestError(400, 'workspace must be under the workspace root');
    const gateRunId = uuidv7();
    const run: LiveRun = { events: [], done: false, listeners: new Set() };
    live.set(gateRunId, run);
    const publish = (event: GateProgress): void => {
      run.events.push(event);
      for (const listener of run.listeners) listener(event);
    };
    const runner = new GateRunner({ gate, workspace, client: clientFor((body.backend as BackendName | undefined) ?? gate.backend), gatesDir, gateRunId, onProgress: publish,
      audit: (draft) => context.audit.record(draft, { sessionId: gateRunId, source: 'gate' }),
    });
    void runner.run().catch((error: unknown) => publish({ type: 'sandbox', attempt: 0, message: `the gate run failed: ${(error as Error).message}` })).finally(() => {
      run.done = true;
      for (const listener of run.listeners) listener({ type: 'sandbox', attempt: 0, message: 'end' });
    });
    return reply.code(202).send({ gateRunId });
  });

  app.get(GATES_RUNS_PATH, { onRequest: context.pageOnly }, async () => {
    const runsDir = join(gatesDir, 'runs');
    const ids = existsSync(runsDir) ? readdirSync(runsDir).filter((id) => UUID.test(id)).sort().reverse().slice(0, 100) : [];
    return { runs: ids.flatMap((id) => {
      try {
        return [JSON.parse(readFileSync(join(runsDir, id, 'manifest.json'), 'utf8')) as Record<string, unknown>];
      } catch {
        return [];
      }
    }) };
  });

  app.get(`${GATES_RUNS_PATH}/:id`, { onRequest: context.pageOnly }, async (request) => {
    const id = (request.params as { id: string }).id;
    if (!UUID.test(id)) throw new GateRequestError(400, 'not a gate run id');
    const dir = join(gatesDir, 'runs', id);
    if (!existsSync(join(dir, 'manifest.json'))) throw new GateRequestError(404, `no gate run ${id}`);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    const ledger = existsSync(join(dir, 'attempts.jsonl')) ? await readLedger(join(dir, 'attempts.jsonl')) : null;
    return { manifest, attempts: ledger?.attempts ?? [], executedOn: placementsOf(dir), escalation: ledger?.escalation ?? null, done: live.get(id)?.done ?? true, progress: live.get(id)?.events ?? [] };
  });

  app.get(`${GATES_RUNS_PATH}/:id/events`, { onRequest: context.pageOnly }, (request, reply) => {
    const id = (request.params as { id: string }).id;
    const run = live.get(id);
    if (run === undefined) {
      void reply.code(404).send({ message: `no live gate run ${id}` });
      return;
    }
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    const send = (event: GateProgress): void => {
      raw.write(`data: ${JSON.stringify(event)}\n\n`);
    };
    for (const event of run.events) send(event);
    if (run.done) {
      raw.end();
      return;
    }
    const listener = (event: GateProgress): void => {
      if (run.done) {
        run.listeners.delete(listener);
        raw.end();
      } else send(event);
    };
    run.listeners.add(listener);
    request.raw.on('close', () => run.listeners.delete(listener));
  });
}

export const gatesService: ServerService = {
  name: 'gates',
  register(app, context) {
    registerGateRoutes(app, context);
  },
};
