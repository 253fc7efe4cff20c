// SandboxSpec: parse (strict JSON Schema, env allowlist, limits), fill defaults, hash and
// freeze. specHash is BLAKE3 over the canonical JSON (RFC 8785) of every other field, so
// two specs that say the same thing in a different key order have the same hash.

import Ajv from 'ajv';
import canonicalize from 'canonicalize';
import { posix } from 'node:path';
import { blake3Hex } from '../../src/host/audit/hash.js';
import { GATE_LIMITS } from '../../src/protocol/limits.js';
import type { SandboxSpec, SandboxSpecInput } from './contract.js';
import { SandboxSpecError } from './errors.js';

/** Environment names a spec may set: exact names, and prefixes ending in `_`. */
export const ENV_ALLOWLIST: readonly string[] = [
  'CI', 'NODE_ENV', 'NODE_OPTIONS', 'LANG', 'LC_ALL', 'TZ', 'NO_COLOR', 'FORCE_COLOR', 'TERM',
  'PYTHONDONTWRITEBYTECODE', 'PYTHONHASHSEED', 'PYTHONUNBUFFERED', 'PYTEST_ADDOPTS',
  'MAKEFLAGS', 'CC', 'CFLAGS', 'LDFLAGS', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL',
  'npm_config_', 'NPM_CONFIG_', 'AIRLOCK_GATE_',
];

export function envNameAllowed(name: string): boolean {
  return ENV_ALLOWLIST.some((entry) => (entry.endsWith('_') ? name.startsWith(entry) && name.length > entry.length : name === entry));
}

const L = GATE_LIMITS;
const word = { type: 'string', maxLength: L.maxValueBytes } as const;
const guestPath = { type: 'string', minLength: 1, maxLength: L.copyOutPathBytes, pattern: '^/' } as const;

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['phases'],
  properties: {
    image: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' },
    copyIn: {
      type: 'array', maxItems: 64,
      items: {
        type: 'object', additionalProperties: false, required: ['hostPath', 'guestPath', 'mode'],
        properties: { hostPath: { type: 'string', minLength: 1, pattern: '^/' }, guestPath, mode: { enum: ['ro', 'rw'] } },
      },
    },
    env: { type: 'object', maxProperties: 128, additionalProperties: word },
    phases: {
      type: 'array', minItems: 1, maxItems: L.maxPhases,
      items: {
        type: 'object', additionalProperties: false, required: ['name', 'argv'],
        properties: {
          name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,31}$' },
          argv: { type: 'array', minItems: 1, maxItems: L.maxArgvWords, items: { ...word, minLength: 1 } },
          network: { enum: ['none', 'scoped'] },
          cwd: guestPath,
        },
      },
    },
    network: { enum: ['none', 'scoped'] },
    egressAllowlist: { type: 'array', maxItems: 256, items: { type: 'string', pattern: '^(\\*\\.)?[a-z0-9]([a-z0-9.-]{0,252})(:[0-9]{1,5})?$' } },
    enableTrace: { type: 'boolean' },
    timeBudgetSeconds: { type: 'integer', minimum: 1, maximum: L.maxTimeBudgetSeconds },
    memoryLimitMiB: { type: 'integer', minimum: L.minMemoryLimitMiB, maximum: L.maxMemoryLimitMiB },
    pidsLimit: { type: 'integer', minimum: 8, maximum: L.maxPidsLimit },
    copyOut: { type: 'array', maxItems: 64, items: guestPath },
    label: { type: 'string', maxLength: 128 },
    specHash: { type: 'string' },
  },
} as const;

const validate = new Ajv({ allErrors: false, strict: true }).compile(SCHEMA);

/** A guest path in its one normal form; refuses `..`, NUL and relative paths. */
export function normalGuestPath(path: string, field: string): string {
  if (path.includes('\0')) throw new SandboxSpecError(`${field}: NUL in path`);
  if (path.split('/').includes('..')) throw new SandboxSpecError(`${field}: '..' is not allowed in a guest path: ${path}`);
  const normal = posix.normalize(path);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** BLAKE3 (hex) of the canonical JSON of `value`. */
export function canonicalHash(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new SandboxSpecError('spec cannot be serialized');
  return blake3Hex(text);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Validates `input`, fills defaults, hashes and freezes it. Throws SandboxSpecError naming the problem. */
export function parseSandboxSpec(input: unknown): SandboxSpec {
  if (!validate(input)) {
    const error = validate.errors?.[0];
    const where = error?.instancePath === '' || error === undefined ? 'spec' : `spec${error.instancePath.replace(/\//g, '.')}`;
    const extra = error?.params && 'additionalProperty' in error.params ? ` '${String(error.params.additionalProperty)}'` : '';
    throw new SandboxSpecError(`${where}: ${error?.message ?? 'invalid'}${extra}`);
  }
  const raw = structuredClone(input) as SandboxSpecInput & { specHash?: string };
  const network = raw.network ?? 'none';
  const body: Omit<SandboxSpec, 'specHash'> = {
    image: raw.image ?? 'default',
    copyIn: (raw.copyIn ?? []).map((entry, index) => ({
      hostPath: posix.normalize(entry.hostPath),
      guestPath: normalGuestPath(entry.guestPath, `copyIn[${index}].guestPath`),
      mode: entry.mode,
    })),
    env: raw.env ?? {},
    phases: raw.phases.map((phase, index) => {
      const out: SandboxSpec['phases'][number] = { name: phase.name, argv: [...phase.argv], network: phase.network ?? network };
      if (phase.cwd !== undefined) out.cwd = normalGuestPath(phase.cwd, `phases[${index}].cwd`);
      if (out.network === 'scoped' && network !== 'scoped') throw new SandboxSpecError(`phases[${index}].network: 'scoped' needs the spec's network to be 'scoped'`);
      return out;
    }),
    network,
    egressAllowlist: raw.egressAllowlist ?? [],
    enableTrace: raw.enableTrace ?? false,
    timeBudgetSeconds: raw.timeBudgetSeconds ?? L.defaultTimeBudgetSeconds,
    memoryLimitMiB: raw.memoryLimitMiB ?? L.defaultMemoryLimitMiB,
    pidsLimit: raw.pidsLimit ?? L.defaultPidsLimit,
    copyOut: (raw.copyOut ?? []).map((path, index) => normalGuestPath(path, `copyOut[${index}]`)),
    label: raw.label ?? '',
  };
  for (const name of Object.keys(body.env)) {
    if (!envNameAllowed(name)) throw new SandboxSpecError(`spec.env.${name}: not on the environment allowlist (see ENV_ALLOWLIST in server/backends/spec.ts)`);
  }
  if (network === 'none' && body.egressAllowlist.length > 0) throw new SandboxSpecError("spec.egressAllowlist: only meaningful with network 'scoped'");
  const guests = body.copyIn.map((entry) => entry.guestPath);
  if (new Set(guests).size !== guests.length) throw new SandboxSpecError('spec.copyIn: two entries have the same guestPath');
  const specHash = canonicalHash(body);
  if (raw.specHash !== undefined && raw.specHash !== specHash) throw new SandboxSpecError(`spec.specHash: ${raw.specHash} does not match the spec (${specHash})`);
  return deepFreeze({ ...body, specHash });
}
