// What the queue tests share: a dispatch with its run endpoints on loopback (the server's
// half, without the rest of the server), a tiny workspace, and gate runs through it.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { BackendName } from '../backends/contract.js';
import { BUILTIN_CATALOG, loadCatalog } from '../gates/catalog.js';
import { GateRunner, type GateOutcome } from '../gates/runner.js';
import { createQueueDispatch, type QueueDispatch } from './dispatch.js';
import { registerRunEndpoints } from './endpoints.js';

export interface Kit {
  dir: string;
  dispatch: QueueDispatch;
  app: FastifyInstance;
  gatesDir: string;
  scratch: string;
  close(): Promise<void>;
}

export async function startKit(url: string): Promise<Kit> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-queue-test-'));
  const app = Fastify({ logger: false, forceCloseConnections: true });
  let endpoint = '';
  const scratch = join(dir, 'scratch');
  const dispatch = createQueueDispatch({ url, endpoint: () => endpoint, scratchRoot: scratch });
  registerRunEndpoints(app, dispatch.runs);
  endpoint = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    dir, dispatch, app, gatesDir: join(dir, 'gates'), scratch,
    async close() {
      await dispatch.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A workspace whose test command takes `seconds` and prints a passing TAP line. */
export function tinyWorkspace(root: string, name: string, seconds = 0): string {
  const workspace = join(root, 'workspaces', name);
  mkdirSync(join(workspace, '.airlock'), { recursive: true });
  writeFileSync(join(workspace, '.airlock/gate.yaml'), `test: "${seconds > 0 ? `sleep ${seconds}; ` : ''}echo ok 1 - ${name}"\n`);
  writeFileSync(join(workspace, 'README'), `workspace ${name}\n`);
  return workspace;
}

export function runGate(kit: Kit, workspace: string, backend: BackendName = 'wasm'): Promise<GateOutcome> {
  const gate = loadCatalog([BUILTIN_CATALOG]).get('tests');
  if (gate === undefined) throw new Error('the built-in catalog has no tests gate');
  return new GateRunner({ gate, workspace, client: kit.dispatch.client(backend), gatesDir: kit.gatesDir }).run();
}
