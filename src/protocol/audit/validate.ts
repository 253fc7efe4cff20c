// Checks an audit event that came from somewhere not trusted to be well-formed: a page
// posting its events to the server, a kernel reporting its refusals, a line read back from
// a file. Every field must be one the schema names for the type, of its kind and within its
// bounds; anything else is refused with a message naming the field (nothing is dropped or
// fixed silently: a refused event is the caller's to count).

import {
  AUDIT_COMMAND_MAX_BYTES,
  AUDIT_EVENT_TYPES,
  AUDIT_FIELD_MAX,
  AUDIT_LIST_MAX,
  AUDIT_SOURCES,
  isAuditEventType,
  type AuditEvent,
} from './schema.js';

export type Validation = { ok: true; event: AuditEvent } | { ok: false; error: string };

interface CompiledField {
  name: string;
  base: string;
  optional: boolean;
  nullable: boolean;
}

/** A field table as a list, each kind taken apart once (validation runs per event). */
function compile(specs: Record<string, string>): CompiledField[] {
  return Object.entries(specs).map(([name, spec]) => {
    const optional = spec.endsWith('?');
    const kind = optional ? spec.slice(0, -1) : spec;
    return { name, base: kind.replace('|null', ''), optional, nullable: kind.endsWith('|null') };
  });
}

const BASE_FIELDS = compile({
  v: 'int',
  type: 'string',
  sessionId: 'string|null',
  seq: 'int',
  time: 'string',
  source: 'string',
  count: 'int?',
  lastTime: 'string?',
});
const BASE_NAMES = new Set(BASE_FIELDS.map((field) => field.name));
const TYPE_FIELDS = new Map(Object.entries(AUDIT_EVENT_TYPES).map(([type, spec]) => [type, compile(spec.fields as Record<string, string>)]));
const TYPE_NAMES = new Map([...TYPE_FIELDS].map(([type, fields]) => [type, new Set(fields.map((field) => field.name))]));

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;
const encoder = new TextEncoder();

function checkKind(field: CompiledField, value: unknown): string | undefined {
  const name = field.name;
  if (value === null && field.nullable) return undefined;
  switch (field.base) {
    case 'string':
      if (typeof value !== 'string') return `${name} must be a string`;
      if (name === 'command') return value.length > AUDIT_COMMAND_MAX_BYTES / 3 && encoder.encode(value).length > AUDIT_COMMAND_MAX_BYTES ? `command is longer than ${AUDIT_COMMAND_MAX_BYTES} bytes` : undefined;
      return value.length > AUDIT_FIELD_MAX ? `${name} is longer than ${AUDIT_FIELD_MAX} characters` : undefined;
    case 'int':
      return Number.isSafeInteger(value) ? undefined : `${name} must be an integer`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `${name} must be a finite number`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${name} must be true or false`;
    case 'strings':
      if (!Array.isArray(value) || value.length > AUDIT_LIST_MAX) return `${name} must be a list of at most ${AUDIT_LIST_MAX} strings`;
      return value.every((item) => typeof item === 'string' && item.length <= AUDIT_FIELD_MAX) ? undefined : `${name} must hold strings of at most ${AUDIT_FIELD_MAX} characters`;
    case 'numbers': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${name} must be an object of numbers`;
      const entries = Object.entries(value);
      if (entries.length > AUDIT_LIST_MAX) return `${name} has more than ${AUDIT_LIST_MAX} entries`;
      return entries.every(([key, n]) => key.length <= AUDIT_FIELD_MAX && typeof n === 'number' && Number.isFinite(n)) ? undefined : `${name} must map names to numbers`;
    }
    default:
      return `${name} has an unknown kind ${field.base}`;
  }
}

function checkFields(fields: CompiledField[], value: Record<string, unknown>): string | undefined {
  for (const field of fields) {
    const item = value[field.name];
    if (item === undefined) {
      if (field.optional) continue;
      return `missing field ${field.name}`;
    }
    const problem = checkKind(field, item);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Validates one event against the schema; returns it typed, or why it is not an event. */
export function validateAuditEvent(value: unknown): Validation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'an event must be a JSON object' };
  const record = value as Record<string, unknown>;
  const type = record.type;
  if (!isAuditEventType(type)) return { ok: false, error: `unknown event type ${JSON.stringify(type)?.slice(0, 80)}` };
  const fields = TYPE_FIELDS.get(type) as CompiledField[];
  const names = TYPE_NAMES.get(type) as Set<string>;
  for (const name in record) {
    if (!BASE_NAMES.has(name) && !names.has(name)) return { ok: false, error: `${type}: unknown field ${name.slice(0, 80)}` };
  }
  const problem = checkFields(BASE_FIELDS, record) ?? checkFields(fields, record);
  if (problem !== undefined) return { ok: false, error: `${type}: ${problem}` };
  if (!(AUDIT_SOURCES as readonly unknown[]).includes(record.source)) return { ok: false, error: `${type}: source must be one of ${AUDIT_SOURCES.join(', ')}` };
  if (!ISO_TIME.test(record.time as string) || (record.lastTime !== undefined && !ISO_TIME.test(record.lastTime as string))) {
    return { ok: false, error: `${type}: time must be ISO 8601 UTC (2026-01-31T12:00:00.000Z)` };
  }
  if ((record.seq as number) < 0 || (record.count !== undefined && (record.count as number) < 1)) return { ok: false, error: `${type}: seq must be ≥ 0 and count ≥ 1` };
  return { ok: true, event: record as unknown as AuditEvent };
}
