// The gate loop (docs/agents.md): the agent's finished workspace goes through the gate runner;
// a failing attempt's summary is handed to the agent as the prior failure of its next phase,
// which produces the next candidate; after AGENT_LIMITS.gateAttempts the runner escalates
// (exit 11). The agent is the gate runner's regenerator.

import { AGENT_LIMITS } from '../../src/protocol/limits.js';
import type { BackendName } from '../backends/contract.js';
import { createSandboxClient } from '../backends/registry.js';
import { defaultGatesDir } from '../backends/run-dir.js';
import { BUILTIN_CATALOG, loadCatalog } from '../gates/catalog.js';
import { GateRunner, type GateOutcome } from '../gates/runner.js';
import { executeAgent, type ExecuteOptions, type ExecutionResult, type ExecutorConfig } from './execute.js';

export interface GateLoopOptions extends ExecuteOptions {
  /** The gate's id in the catalog (tests, build, strict). */
  gate: string;
  backend?: BackendName;
  gatesDir?: string;
  catalogDirs?: string[];
}

export interface GateLoopResult {
  /** Each agent phase, in order (one per gate attempt that needed a candidate). */
  phases: ExecutionResult[];
  gate: GateOutcome | null;
  /** 0 passed, 1 failed (the agent or an operator problem), 11 escalated. */
  exitCode: number;
}

export async function executeAgentWithGate(prompt: string, config: ExecutorConfig, options: GateLoopOptions): Promise<GateLoopResult> {
  const catalog = loadCatalog(options.catalogDirs ?? [BUILTIN_CATALOG]);
  const gate = catalog.get(options.gate);
  if (gate === undefined) throw new Error(`no gate named ${JSON.stringify(options.gate)} (have: ${[...catalog.keys()].sort().join(', ')})`);
  const phases: ExecutionResult[] = [];
  const first = await executeAgent(prompt, config, options);
  phases.push(first);
  if (!first.success) return { phases, gate: null, exitCode: 1 };
  let outcome: GateOutcome;
  try {
    outcome = await new GateRunner({
      gate,
      workspace: config.cwd ?? process.cwd(),
      client: createSandboxClient(options.backend ?? 'wasm'),
      gatesDir: options.gatesDir ?? defaultGatesDir(),
      maxAttempts: AGENT_LIMITS.gateAttempts,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      regenerate: async ({ priorFailure }) => {
        const next = await executeAgent(prompt, config, { ...options, priorFailure });
        phases.push(next);
        if (!next.success) throw new Error(`the agent's phase failed: ${next.error ?? next.stopReason}`);
      },
    }).run();
  } catch (error) {
    // A phase that failed ends the loop: the runner's regenerator threw for it.
    if (phases.at(-1)?.success === false) return { phases, gate: null, exitCode: 1 };
    throw error;
  }
  return { phases, gate: outcome, exitCode: outcome.exitCode };
}
