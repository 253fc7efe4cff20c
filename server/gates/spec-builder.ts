// From a gate definition, an attempt number and a workspace to a SandboxSpec: the spec
// template merged with the attempt's overrides, `command` phases resolved to the
// workspace's own commands (workspace.ts), the workspace copied in read-write at
// /home/user/work. Attempt numbers past the catalog's use the last override given.

import type { BackendName, SandboxSpec } from '../backends/contract.js';
import { parseSandboxSpec } from '../backends/spec.js';
import type { GateDefinition, SpecTemplate } from './catalog.js';
import { workspaceCommand } from './workspace.js';

export const WORKSPACE_GUEST_PATH = '/home/user/work';

function overrideFor(gate: GateDefinition, attempt: number): SpecTemplate {
  for (let n = attempt; n >= 1; n--) {
    const found = gate.attempts[String(n)];
    if (found !== undefined) return found;
  }
  return {};
}

export function buildSpec(gate: GateDefinition, attempt: number, workspace: string, backend: BackendName): SandboxSpec {
  const override = overrideFor(gate, attempt);
  const template = { ...gate.spec, ...override, env: { ...(gate.spec.env ?? {}), ...(override.env ?? {}), AIRLOCK_GATE_ATTEMPT: String(attempt) } };
  const verbose = attempt > 1;
  const phases = (template.phases ?? gate.spec.phases).map((phase) => ({
    name: phase.name,
    argv: phase.argv ?? workspaceCommand(workspace, phase.command ?? 'test', verbose),
    ...(phase.network === undefined ? {} : { network: phase.network }),
  }));
  return parseSandboxSpec({
    label: `${gate.id}-attempt-${attempt}`,
    copyIn: [{ hostPath: workspace, guestPath: WORKSPACE_GUEST_PATH, mode: 'rw' }],
    env: template.env,
    phases,
    network: template.network ?? 'none',
    egressAllowlist: template.egressAllowlist ?? [],
    enableTrace: template.enableTrace ?? gate.requiredSignals.includes('trace'),
    ...(template.timeBudgetSeconds === undefined ? {} : { timeBudgetSeconds: template.timeBudgetSeconds }),
    ...(template.memoryLimitMiB === undefined ? {} : { memoryLimitMiB: template.memoryLimitMiB }),
    ...(template.pidsLimit === undefined ? {} : { pidsLimit: template.pidsLimit }),
    copyOut: template.copyOut ?? [],
    image: backend === 'wasm' ? 'airlock' : 'default',
  });
}
