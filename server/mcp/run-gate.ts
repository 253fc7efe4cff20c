// run_gate: the session's workspace (its sandbox's /home/user) copied out to a fresh host
// directory and put through the gate runner once (an MCP client regenerates by itself), on
// the wasm backend unless the configuration names another.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sandbox } from '../../src/host/node/index.js';
import { copyDirOut } from '../../src/host/node/copy-dir.js';
import type { BackendName } from '../backends/contract.js';
import { createSandboxClient } from '../backends/registry.js';
import { defaultGatesDir } from '../backends/run-dir.js';
import { BUILTIN_CATALOG, loadCatalog } from '../gates/catalog.js';
import { GateRunner, type GateOutcome } from '../gates/runner.js';
import { McpToolError } from './session.js';

export interface RunGateOptions {
  backend?: BackendName;
  gatesDir?: string;
  /** The workspace in the sandbox (default /home/user). */
  from?: string;
}

export async function runGateOnSandbox(sandbox: Sandbox, gateId: string, options: RunGateOptions = {}): Promise<GateOutcome> {
  const catalog = loadCatalog([BUILTIN_CATALOG]);
  const gate = catalog.get(gateId);
  if (gate === undefined) throw new McpToolError(`no gate named ${JSON.stringify(gateId)} (have: ${[...catalog.keys()].sort().join(', ')})`);
  const root = await mkdtemp(join(tmpdir(), 'airlock-mcp-gate-'));
  try {
    const workspace = join(root, 'workspace');
    await copyDirOut(sandbox, options.from ?? '/home/user', workspace);
    const client = createSandboxClient(options.backend ?? 'wasm');
    try {
      return await new GateRunner({ gate, workspace, client, gatesDir: options.gatesDir ?? defaultGatesDir(), maxAttempts: 1 }).run();
    } catch (error) {
      throw new McpToolError(`gate ${gateId}: ${(error as Error).message}`);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
