// What travels between the server and its workers. A job (BullMQ's data, in Redis) names
// one sandbox run of one gate attempt: the spec as the contract defines it, the workspace
// artifacts by SHA-256, where the server's endpoints are and the run's own token. It carries
// no secret of the server: the spec's env is allowlisted names only (spec.ts), and the
// gateway on the worker's side injects what a scoped run needs. The token opens this run's
// three endpoints and nothing else, and closes when the run's result is in.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import Ajv from 'ajv';
import { BACKEND_NAMES, type BackendName, type SandboxSpec } from '../backends/contract.js';
import { GATE_LIMITS } from '../../src/protocol/limits.js';

export const QUEUE_PROTOCOL_VERSION = 1;
/** BullMQ's key prefix: every key of the gate queue starts `airlock:`. */
export const QUEUE_PREFIX = 'airlock';

/** One BullMQ queue per backend: a worker listens only on the backends it can run. */
export function queueName(backend: BackendName): string {
  return `gates-${backend}`;
}

export const QUEUE_LIMITS = Object.freeze({
  /** A workspace artifact (the tar of one copy-in) at most: the copy-in cap plus tar headers. */
  artifactBytes: GATE_LIMITS.copyInBytes + 64 * 1024 * 1024,
  /** A result (logs, trace, copy-out, run.json) at most. */
  resultBytes: GATE_LIMITS.copyOutBytes + GATE_LIMITS.maxPhases * 2 * GATE_LIMITS.phaseLogBytes + 32 * 1024 * 1024,
  resultEntries: GATE_LIMITS.copyOutEntries + 2 * GATE_LIMITS.maxPhases + 16,
  /** One events post (progress lines) at most. */
  eventsBytes: 64 * 1024,
  /** Delivery attempts of one job (a worker crash or an infrastructure error); the gate's own retries are separate. */
  jobAttempts: 3,
});

/** The endpoints of one run, under the server's base URL. */
export const RUN_PATH = '/api/queue/runs';
export const artifactPath = (jobId: string, index: number): string => `${RUN_PATH}/${jobId}/artifacts/${index}`;
export const eventsPath = (jobId: string): string => `${RUN_PATH}/${jobId}/events`;
export const resultPath = (jobId: string): string => `${RUN_PATH}/${jobId}/result`;
export const SHA256_HEADER = 'x-airlock-sha256';
export const WORKER_HEADER = 'x-airlock-worker';

export interface GateJobArtifact {
  /** The copy-in it replaces (its index in spec.copyIn). */
  index: number;
  sha256: string;
  bytes: number;
}

export interface GateJob {
  v: typeof QUEUE_PROTOCOL_VERSION;
  /** The run id: BullMQ's jobId, so enqueuing it again adds nothing. */
  jobId: string;
  gateRunId: string;
  gateId: string;
  attempt: number;
  backend: BackendName;
  spec: SandboxSpec;
  artifacts: GateJobArtifact[];
  /** Base URL of the server's artifact and result endpoints, as workers reach it. */
  endpoint: string;
  /** This run's token (Authorization: Bearer): only this run's endpoints accept it. */
  token: string;
  enqueuedAt: string;
}

/** Events a worker posts while it runs (chained on the gate's ledger by the server). */
export type WorkerEvent =
  | { type: 'started'; sandboxRunId: string; workerId: string; host: string; version: string }
  | { type: 'progress'; message: string };

const JOB_ID = '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$';
const SHA = '^[0-9a-f]{64}$';

const JOB_SCHEMA = {
  type: 'object', additionalProperties: false,
  required: ['v', 'jobId', 'gateRunId', 'gateId', 'attempt', 'backend', 'spec', 'artifacts', 'endpoint', 'token', 'enqueuedAt'],
  properties: {
    v: { const: QUEUE_PROTOCOL_VERSION },
    jobId: { type: 'string', pattern: JOB_ID },
    gateRunId: { type: 'string', pattern: JOB_ID },
    gateId: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' },
    attempt: { type: 'integer', minimum: 1, maximum: GATE_LIMITS.maxAttemptsOverride },
    backend: { enum: [...BACKEND_NAMES] },
    // The spec's own contract check is parseSandboxSpec (the worker runs it).
    spec: { type: 'object' },
    artifacts: {
      type: 'array', maxItems: 64,
      items: { type: 'object', additionalProperties: false, required: ['index', 'sha256', 'bytes'], properties: { index: { type: 'integer', minimum: 0, maximum: 63 }, sha256: { type: 'string', pattern: SHA }, bytes: { type: 'integer', minimum: 0, maximum: QUEUE_LIMITS.artifactBytes } } },
    },
    endpoint: { type: 'string', pattern: '^https?://[^/?#]+$', maxLength: 512 },
    token: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
    enqueuedAt: { type: 'string', maxLength: 64 },
  },
} as const;

const validateJob = new Ajv({ allErrors: false, strict: true }).compile(JOB_SCHEMA);

/** Why `data` is not a job of this protocol, or undefined when it is (the spec is checked separately). */
export function jobProblem(data: unknown): string | undefined {
  if (validateJob(data)) return undefined;
  const error = validateJob.errors?.[0];
  return `job${error?.instancePath ?? ''} ${error?.message ?? 'is invalid'}${error?.keyword === 'additionalProperties' ? `: ${String((error.params as { additionalProperty: string }).additionalProperty)}` : ''}`;
}

/** A fresh per-run token: 32 random bytes, base64url. */
export function newRunToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokensEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
