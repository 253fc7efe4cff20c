// Loads the server's configuration: defaults, then a YAML file (if given), then the
// environment, then the command line, each checked against the schema. A bad key or value
// stops the server with the file, line and reason (or the variable or option that set it).

import { readFileSync } from 'node:fs';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { isMap, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { CONFIG_SCHEMA, defaultConfig, type ServerConfig } from './schema.js';

/** A configuration the server cannot start with; the message names where and why. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A partial configuration from one source, and how to name that source in an error. */
export interface ConfigLayer {
  values: Record<string, unknown>;
  /** Where the value at a path (`network.allowedHosts`) came from: `file.yaml:3`, `AIRLOCK_PORT`. */
  origin(path: string[]): string;
}

const ajv = new Ajv({ allErrors: true, strict: true });
const validate = ajv.compile(CONFIG_SCHEMA);

function describe(error: ErrorObject): { path: string[]; reason: string } {
  const path = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'additionalProperties') {
    const key = String((error.params as { additionalProperty: string }).additionalProperty);
    return { path: [...path, key], reason: `unknown key ${[...path, key].join('.')}` };
  }
  if (error.keyword === 'enum') return { path, reason: `${path.join('.')} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` };
  return { path, reason: `${path.join('.') || 'the configuration'} ${error.message ?? 'is invalid'}` };
}

/** Compiles a schema for checkWith(). */
export function compileSchema(schema: object): ValidateFunction {
  return ajv.compile(schema);
}

/** Checks one layer against a schema; throws ConfigError naming its origin. */
export function checkWith(validate: ValidateFunction, layer: ConfigLayer): void {
  if (validate(layer.values)) return;
  const lines = (validate.errors ?? []).map(describe).map((p) => `${layer.origin(p.path)}: ${p.reason}`);
  // In the order of the file, not of the schema.
  const lineNumber = (text: string): number => Number(/:(\d+): /.exec(text)?.[1] ?? 0);
  throw new ConfigError(lines.sort((a, b) => lineNumber(a) - lineNumber(b)).join('\n'));
}

function lineOf(doc: Document, counter: LineCounter, path: string[]): number {
  // The key's line for an unknown key; the value's line otherwise.
  const parent = path.length > 1 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
  if (isMap(parent)) {
    const pair = parent.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === path[path.length - 1]);
    const node = pair !== undefined && isScalar(pair.key) ? pair.key : undefined;
    if (node?.range) return counter.linePos(node.range[0]).line;
  }
  const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
  if (node?.range) return counter.linePos(node.range[0]).line;
  return 1;
}

/** The layer of a YAML configuration file. */
export function fileLayer(file: string, text = readFileSync(file, 'utf8')): ConfigLayer {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax !== undefined) throw new ConfigError(`${file}:${counter.linePos(syntax.pos[0]).line}: ${syntax.message.split('\n')[0]}`);
  const values = (doc.toJS() ?? {}) as unknown;
  if (typeof values !== 'object' || values === null || Array.isArray(values)) throw new ConfigError(`${file}:1: the file must hold a mapping of keys`);
  return { values: values as Record<string, unknown>, origin: (path) => `${file}:${lineOf(doc, counter, path)}` };
}

const list = (text: string): string[] => text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
const integer = (text: string): number | string => (/^\d+$/.test(text) ? Number(text) : text);

/** Environment variables that override the file: name → path and conversion. */
export const ENV_OVERRIDES: ReadonlyArray<{ name: string; path: [string, string]; convert: (text: string) => unknown }> = [
  { name: 'AIRLOCK_HOST', path: ['server', 'host'], convert: (t) => t },
  { name: 'PORT', path: ['server', 'port'], convert: integer },
  { name: 'AIRLOCK_PORT', path: ['server', 'port'], convert: integer },
  { name: 'AIRLOCK_WEB', path: ['server', 'web'], convert: (t) => t },
  { name: 'AIRLOCK_LOG_LEVEL', path: ['log', 'level'], convert: (t) => t },
  { name: 'AIRLOCK_NET_ALLOW', path: ['network', 'allowedHosts'], convert: list },
  { name: 'AIRLOCK_NET_BLOCK', path: ['network', 'blockedHosts'], convert: list },
  { name: 'AIRLOCK_DNS_SERVERS', path: ['network', 'dnsServers'], convert: list },
  { name: 'AIRLOCK_AUDIT_FILE', path: ['audit', 'file'], convert: (t) => t },
  { name: 'AIRLOCK_AUDIT_KEY_FILE', path: ['audit', 'keyFile'], convert: (t) => t },
  { name: 'AIRLOCK_MCP_TOKEN_FILE', path: ['mcp', 'tokenFile'], convert: (t) => t },
  { name: 'AIRLOCK_GATES_WORKSPACES', path: ['gates', 'workspaces'], convert: (t) => t },
  { name: 'AIRLOCK_GATES_DIR', path: ['gates', 'dir'], convert: (t) => t },
  { name: 'AIRLOCK_QUEUE_URL', path: ['queue', 'url'], convert: (t) => t },
  { name: 'AIRLOCK_QUEUE_ADVERTISE', path: ['queue', 'advertise'], convert: (t) => t },
  { name: 'AIRLOCK_AGENTS_TOKEN_FILE', path: ['agents', 'tokenFile'], convert: (t) => t },
  { name: 'AIRLOCK_AGENTS_WORKSPACES', path: ['agents', 'workspaces'], convert: (t) => t },
];

/** A layer of values keyed by path, each named by its source (an env variable, an option). */
export function pathLayer(entries: Array<{ path: [string, string]; value: unknown; source: string }>): ConfigLayer {
  const values: Record<string, Record<string, unknown>> = {};
  const sources = new Map<string, string>();
  for (const { path, value, source } of entries) {
    (values[path[0]] ??= {})[path[1]] = value;
    sources.set(path.join('.'), source);
  }
  return { values, origin: (path) => sources.get(path.slice(0, 2).join('.')) ?? 'the configuration' };
}

export function envLayer(env: NodeJS.ProcessEnv): ConfigLayer {
  const entries = ENV_OVERRIDES.filter((o) => env[o.name] !== undefined && env[o.name] !== '').map((o) => ({ path: o.path, value: o.convert(env[o.name] as string), source: o.name }));
  return pathLayer(entries);
}

/** Merges checked layers over the defaults, later layers winning key by key. */
export function resolveConfig(layers: ConfigLayer[]): ServerConfig {
  const config = defaultConfig() as unknown as Record<string, Record<string, unknown>>;
  for (const layer of layers) {
    checkWith(validate, layer);
    for (const [section, values] of Object.entries(layer.values)) Object.assign((config[section] ??= {}), values);
  }
  return config as unknown as ServerConfig;
}
