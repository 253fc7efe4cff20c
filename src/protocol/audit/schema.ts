// The audit event schema (docs/audit.md): one table of every event type and its fields,
// from which the TypeScript types, the validator of untrusted events and the docs' check
// are all derived, so a type is defined in exactly one place.
//
// Every event has the base fields (v, type, sessionId, seq, time, source, and `count` when
// it stands for several occurrences); the table adds the fields of each type. Events carry
// decisions and their subjects (a tool name, a path, a URL, a limit), never file contents,
// never request headers or bodies, never secrets.

/** Bumped when a field changes meaning or a required field is added. */
export const AUDIT_SCHEMA_VERSION = 1;

/**
 * Who states the event. `sandbox-reported` is what the kernel tells the host about its own
 * refusals: the sandbox is not trusted to tell the truth, so such events are marked.
 */
export const AUDIT_SOURCES = ['host', 'server', 'gate', 'agent', 'sandbox-reported'] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

/** The kinds a field can have; a trailing `?` makes it optional. */
export type FieldKind = 'string' | 'int' | 'number' | 'boolean' | 'strings' | 'numbers' | 'string|null' | 'int|null' | 'number|null' | 'strings|null';
type FieldSpec = FieldKind | `${FieldKind}?`;

interface TypeSpec {
  /** One line for docs/audit.md and the playground panel. */
  summary: string;
  /** Whether the event is a refusal (highlighted in the panel; subject to flood coalescing). */
  refusal: boolean;
  fields: Record<string, FieldSpec>;
}

/** The longest string in any field but `command`, in UTF-16 code units. */
export const AUDIT_FIELD_MAX = 1024;
/** Run commands are kept up to this many bytes (UTF-8), with the hash of the whole command. */
export const AUDIT_COMMAND_MAX_BYTES = 4096;
/** Longest list in a `strings` field. */
export const AUDIT_LIST_MAX = 256;

/**
 * Every event type. Other streams emit the extension, package, gate, backend and agent
 * types through the same emitter; they are defined here so there is one schema.
 */
export const AUDIT_EVENT_TYPES = {
  // ---- a sandbox's life (source: host) --------------------------------------------------
  'sandbox.created': {
    summary: 'a sandbox session started (a new worker, or a fork of another session)',
    refusal: false,
    fields: { allowedTools: 'strings|null', networkHosts: 'strings', forkedFrom: 'string|null', fromState: 'boolean', limits: 'numbers' },
  },
  'sandbox.destroyed': { summary: 'the session ended (destroy())', refusal: false, fields: {} },
  'sandbox.forked': { summary: 'fork() made a new session from this one', refusal: false, fields: { child: 'string' } },
  'sandbox.restored': { summary: 'restore() went back to a snapshot', refusal: false, fields: { snapshotId: 'int', inPlace: 'boolean' } },
  'sandbox.hard_killed': {
    summary: 'the host terminated the worker: a run outlived its deadline or did not stop when cancelled',
    refusal: true,
    fields: { runId: 'int', reason: 'string', timeoutMs: 'int' },
  },
  'sandbox.worker_restarted': {
    summary: 'a fresh worker was started from the last checkpoint (after a hard kill, a crash or a broken protocol)',
    refusal: false,
    fields: { runId: 'int|null', reason: 'string' },
  },

  // ---- runs (source: host) ---------------------------------------------------------------
  'run.started': {
    summary: 'run() began; the command is kept up to 4 KiB, with the BLAKE3 hash of all of it',
    refusal: false,
    fields: { runId: 'int', command: 'string', commandBytes: 'int', commandHash: 'string', commandTruncated: 'boolean', argv: 'boolean' },
  },
  'run.ended': {
    summary: 'run() ended',
    refusal: false,
    fields: { runId: 'int', exitCode: 'int', durationMs: 'number', errorClass: 'string|null', outputTruncated: 'boolean' },
  },

  // ---- refusals ------------------------------------------------------------------------
  'limit.hit': { summary: 'a limit refused or ended something', refusal: true, fields: { runId: 'int|null', limit: 'string', value: 'number' } },
  'tool.refused': { summary: 'the tool allowlist refused to start a tool (sandbox-reported)', refusal: true, fields: { runId: 'int|null', tool: 'string' } },
  'write.refused': {
    summary: 'the filesystem refused a write: EROFS (read-only path) or ENOSPC (a limit) (sandbox-reported)',
    refusal: true,
    fields: { runId: 'int|null', errno: 'string', path: 'string', limit: 'string|null' },
  },
  'network.decision': {
    summary: 'a network request (one hop) was allowed or refused by a policy',
    refusal: false,
    fields: { runId: 'int|null', enforcer: 'string', method: 'string', url: 'string', host: 'string', allowed: 'boolean', reason: 'string|null', rule: 'string?', exception: 'string?', status: 'int?', bytes: 'int?', durationMs: 'number?' },
  },

  // ---- persistence (source: host) -------------------------------------------------------
  'persistence.committed': {
    summary: "the host validated and kept the sandbox's filesystem changes (its checkpoint)",
    refusal: false,
    fields: { runId: 'int|null', records: 'int', deleted: 'int' },
  },
  'persistence.rejected': {
    summary: 'the host refused changes or a saved session that broke the limits or the protocol',
    refusal: true,
    fields: { runId: 'int|null', reason: 'string', limit: 'string|null' },
  },

  // ---- extensions and packages (issue 14) ----------------------------------------------
  'extension.called': {
    summary: 'sandbox code called a host extension',
    refusal: false,
    fields: { runId: 'int|null', name: 'string', exitCode: 'int', durationMs: 'number', outcome: 'string?', stdinBytes: 'int?', outputBytes: 'int?' },
  },
  'extension.refused': { summary: 'an extension call was refused', refusal: true, fields: { runId: 'int|null', name: 'string', reason: 'string' } },
  'package.installed': {
    summary: 'a package was installed',
    refusal: false,
    fields: { name: 'string', version: 'string|null', host: 'string', bytes: 'int', sha256: 'string|null' },
  },
  'package.removed': { summary: 'a package was removed', refusal: false, fields: { name: 'string' } },
  'package.refused': { summary: 'a package install was refused (policy, size, count, name)', refusal: true, fields: { name: 'string', reason: 'string' } },

  // ---- gates (issue 15; the seed's event names, source: gate) ---------------------------
  'gate.attempt_started': { summary: 'a gate attempt began', refusal: false, fields: { gateId: 'string', gateRunId: 'string', attempt: 'int' } },
  'gate.attempt_completed': {
    summary: 'a gate attempt ended with its verdict',
    refusal: false,
    fields: {
      gateId: 'string', gateRunId: 'string', attempt: 'int', passed: 'boolean', retryable: 'boolean', summary: 'string',
      // The gate ledger's record of the attempt (attempts.jsonl): its id, the sandbox run,
      // each signal as "kind:passed|failed: detail", the failure handed to the next attempt,
      // and the cost entry (vmSeconds, bytesIn, bytesOut).
      attemptId: 'string', backend: 'string', sandboxRunId: 'string|null', specHash: 'string|null',
      signals: 'strings', failureSummary: 'string|null', priorFailureSummary: 'string|null', cost: 'numbers',
    },
  },
  'gate.escalate': { summary: 'a gate gave up and escalated to a human', refusal: true, fields: { gateId: 'string', gateRunId: 'string', attempts: 'int', reason: 'string' } },
  'sandbox.spec_built': { summary: 'a gate built the spec of a backend run', refusal: false, fields: { backend: 'string', specHash: 'string' } },
  'sandbox.run_started': { summary: 'a backend (wasm, qemu, firecracker) started a run', refusal: false, fields: { backend: 'string', specHash: 'string', sandboxRunId: 'string' } },
  'sandbox.run_completed': {
    summary: 'a backend run ended',
    refusal: false,
    fields: { backend: 'string', sandboxRunId: 'string', exitCode: 'int', durationMs: 'number' },
  },
  'sandbox.timed_out': { summary: 'a backend run outlived its time budget and was killed', refusal: true, fields: { backend: 'string', sandboxRunId: 'string', timeBudgetMs: 'int' } },
  'sandbox.oom_killed': { summary: 'a backend run ran out of memory and was killed', refusal: true, fields: { backend: 'string', sandboxRunId: 'string', memoryLimitBytes: 'int' } },

  // ---- agents (issue 17, source: agent) -------------------------------------------------
  'agent.started': {
    summary: 'an agent phase began (executeAgent): its model, sandbox and egress',
    refusal: false,
    fields: { agentId: 'string', model: 'string', sandbox: 'string', egress: 'string', profile: 'string|null', taskId: 'string|null' },
  },
  'agent.ended': {
    summary: 'an agent phase ended: why, after how many turns, at what cost',
    refusal: false,
    fields: { agentId: 'string', success: 'boolean', stopReason: 'string', turns: 'int', error: 'string|null', costUsd: 'number|null', durationMs: 'number' },
  },
  'agent.turn': { summary: 'an agent began a turn', refusal: false, fields: { agentId: 'string', turn: 'int', model: 'string|null' } },
  'agent.tool_call': {
    summary: 'an agent called a tool (or was refused one)',
    refusal: false,
    fields: { agentId: 'string', turn: 'int', tool: 'string', allowed: 'boolean', reason: 'string|null', durationMs: 'number|null' },
  },
  'agent.usage': {
    summary: "an agent's model usage for a turn",
    refusal: false,
    fields: { agentId: 'string', turn: 'int', model: 'string', inputTokens: 'int', outputTokens: 'int', costUsd: 'number|null' },
  },

  // ---- the log itself -------------------------------------------------------------------
  'audit.chain_started': { summary: 'the first line of a chain, naming it', refusal: false, fields: { chainId: 'string' } },
  'audit.segment_started': {
    summary: 'the first line of a file after rotation; the chain continues from the previous file',
    refusal: false,
    fields: { chainId: 'string', segment: 'int', previousFile: 'string' },
  },
  'audit.repaired': {
    summary: 'repair removed a torn last line (a crash mid-append); the removed bytes are counted and hashed',
    refusal: false,
    fields: { line: 'int', truncatedBytes: 'int', truncatedHash: 'string', reason: 'string' },
  },
  'audit.coalesced': {
    summary: 'a flood of refusals with too many different subjects to list; `count` of them, counted by type',
    refusal: true,
    fields: { types: 'numbers', reason: 'string' },
  },
  'audit.dropped': {
    summary: 'events were lost (a sink backlog or the browser outbox was full); counted, by type',
    refusal: false,
    fields: { lost: 'int', reason: 'string', types: 'numbers' },
  },
} as const satisfies Record<string, TypeSpec>;

export type AuditEventType = keyof typeof AUDIT_EVENT_TYPES;

// ---- types derived from the table -----------------------------------------------------------

type ValueOf<K extends string> = K extends 'string'
  ? string
  : K extends 'int' | 'number'
    ? number
    : K extends 'boolean'
      ? boolean
      : K extends 'strings'
        ? string[]
        : K extends 'numbers'
          ? Record<string, number>
          : K extends `${infer Base}|null`
            ? ValueOf<Base> | null
            : never;

type Required<D> = { [P in keyof D as D[P] extends `${string}?` ? never : P]: D[P] extends string ? ValueOf<D[P]> : never };
type Optional<D> = { [P in keyof D as D[P] extends `${string}?` ? P : never]?: D[P] extends `${infer K}?` ? ValueOf<K> : never };

/** The fields a type adds to the base fields. */
export type AuditFields<T extends AuditEventType> = Required<(typeof AUDIT_EVENT_TYPES)[T]['fields']> & Optional<(typeof AUDIT_EVENT_TYPES)[T]['fields']>;

/** The fields every event has. */
export interface AuditBase {
  /** AUDIT_SCHEMA_VERSION of the writer. */
  v: number;
  /** The sandbox session (or gate run, agent) the event belongs to; null for the log's own events. */
  sessionId: string | null;
  /** Position of the event among its session's events: 0, 1, 2, … (a gap means a lost event). */
  seq: number;
  /** When it happened: ISO 8601 UTC with milliseconds. */
  time: string;
  source: AuditSource;
  /** How many occurrences this event stands for (flood coalescing); 1 when absent. */
  count?: number;
  /** With count > 1: when the last of them happened (`time` is the first). */
  lastTime?: string;
}

export type AuditEventOf<T extends AuditEventType> = AuditBase & { type: T } & AuditFields<T>;
export type AuditEvent = { [T in AuditEventType]: AuditEventOf<T> }[AuditEventType];

/** What an emitter is given: the type and its fields (the base fields are filled in). */
export type AuditDraft = { [T in AuditEventType]: { type: T } & AuditFields<T> }[AuditEventType];

export function isAuditEventType(type: unknown): type is AuditEventType {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(AUDIT_EVENT_TYPES, type);
}

/** Whether events of `type` are refusals (highlighted, coalesced in floods). */
export function isRefusal(event: { type: AuditEventType; allowed?: boolean }): boolean {
  if (event.type === 'network.decision' || event.type === 'agent.tool_call') return event.allowed === false;
  return AUDIT_EVENT_TYPES[event.type].refusal;
}
