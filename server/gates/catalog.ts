// Gates as data: one YAML file per gate (catalog/*.yaml, and any directory an operator adds),
// each checked against catalog/schema.json when loaded. The catalog is loaded whole before
// any gate runs; one invalid file stops everything with GateCatalogInvalid naming the file,
// the line and the reason.

import Ajv from 'ajv';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseDocument, isNode } from 'yaml';
import type { BackendName, NetworkMode } from '../backends/contract.js';
import type { SignalKind } from './signals/signal.js';
import { GATE_LIMITS } from '../../src/protocol/limits.js';
import { packageRoot } from '../../src/host/node/kernel-bundle.js';

// From the package root, so the bundled CLI (dist/node) finds it too.
export const BUILTIN_CATALOG = join(packageRoot(), 'server/gates/catalog');

export interface PhaseTemplate {
  name: string;
  argv?: string[];
  /** A command the workspace names (workspace.ts): test, build or install. */
  command?: 'test' | 'build' | 'install';
  network?: NetworkMode;
}

export interface SpecTemplate {
  network?: NetworkMode;
  egressAllowlist?: string[];
  enableTrace?: boolean;
  timeBudgetSeconds?: number;
  memoryLimitMiB?: number;
  pidsLimit?: number;
  env?: Record<string, string>;
  copyOut?: string[];
  phases?: PhaseTemplate[];
}

export interface PolicyRules {
  forbiddenPaths?: string[];
  requireLockfile?: boolean;
  maxFileBytes?: number;
  retryAllowed?: boolean;
}

export interface GateDefinition {
  id: string;
  description: string;
  backend: BackendName;
  requiredSignals: SignalKind[];
  retry: { maxAttempts: number; retryable: SignalKind[]; timeoutRetryable: boolean };
  spec: SpecTemplate & { phases: PhaseTemplate[] };
  /** Overrides of the spec for attempt N (merged over `spec`). */
  attempts: Record<string, SpecTemplate>;
  policy: PolicyRules;
  trace: { baseline: string };
  /** The file it was loaded from. */
  file: string;
}

export class GateCatalogInvalid extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${file}:${line}: ${reason}`);
    this.name = 'GateCatalogInvalid';
  }
}

const schema = JSON.parse(readFileSync(join(BUILTIN_CATALOG, 'schema.json'), 'utf8')) as object;
const validate = new Ajv({ allErrors: false, strict: true, strictRequired: false }).compile(schema);

/** Parses and validates one gate file's text. */
export function parseGate(file: string, text: string): GateDefinition {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const lineAt = (offset: number | undefined): number => (offset === undefined ? 1 : lineCounter.linePos(offset).line);
  const yamlError = doc.errors[0];
  if (yamlError !== undefined) throw new GateCatalogInvalid(file, lineAt(yamlError.pos[0]), `YAML: ${yamlError.message.split('\n')[0]}`);
  const value: unknown = doc.toJS();
  if (!validate(value)) {
    const error = validate.errors?.[0];
    const path = (error?.instancePath ?? '').split('/').slice(1).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    let node = doc.getIn(path, true);
    // A missing property: point at its parent.
    while (!isNode(node) && path.length > 0) node = doc.getIn(path.splice(-1, 1) && path, true);
    const offset = isNode(node) ? node.range?.[0] : undefined;
    const extra = error?.params && 'additionalProperty' in error.params ? ` '${String(error.params.additionalProperty)}'` : '';
    const where = error?.instancePath === '' || error === undefined ? '' : `${error.instancePath.slice(1).replace(/\//g, '.')}: `;
    throw new GateCatalogInvalid(file, lineAt(offset), `${where}${error?.message ?? 'invalid'}${extra}`);
  }
  const raw = value as Omit<GateDefinition, 'file' | 'backend' | 'retry' | 'attempts' | 'policy' | 'trace'> & Partial<GateDefinition>;
  if (raw.spec.phases === undefined) throw new GateCatalogInvalid(file, 1, 'spec.phases: a gate needs at least one phase');
  return {
    id: raw.id,
    description: raw.description,
    backend: raw.backend ?? 'qemu',
    requiredSignals: raw.requiredSignals,
    retry: {
      maxAttempts: raw.retry?.maxAttempts ?? GATE_LIMITS.defaultMaxAttempts,
      retryable: raw.retry?.retryable ?? ['build', 'tests'],
      timeoutRetryable: raw.retry?.timeoutRetryable ?? false,
    },
    spec: raw.spec as GateDefinition['spec'],
    attempts: raw.attempts ?? {},
    policy: raw.policy ?? {},
    trace: { baseline: raw.trace?.baseline ?? '.airlock/trace-baseline.json' },
    file,
  };
}

/** Loads every *.yaml of `dirs` (the built-in catalog first); a later id replaces an earlier one. */
export function loadCatalog(dirs: string[] = [BUILTIN_CATALOG]): Map<string, GateDefinition> {
  const gates = new Map<string, GateDefinition>();
  for (const dir of dirs) {
    for (const name of readdirSync(dir).filter((entry) => entry.endsWith('.yaml') || entry.endsWith('.yml')).sort()) {
      const file = join(dir, name);
      const gate = parseGate(file, readFileSync(file, 'utf8'));
      const stem = name.replace(/\.ya?ml$/, '');
      if (gate.id !== stem) throw new GateCatalogInvalid(file, 1, `id '${gate.id}' must match the file name '${stem}'`);
      gates.set(gate.id, gate);
    }
  }
  return gates;
}
