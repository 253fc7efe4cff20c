// The server's configuration: its shape (a JSON Schema, checked at start with Ajv), its
// defaults, and the TypeScript type the code reads. Everything has a default, so the server
// starts with no configuration at all.

import { AGENT_LIMITS, DEFAULT_LIMITS, EXTENSION_LIMITS, MCP_LIMITS } from '../../src/protocol/limits.js';
import type { NetworkPolicy } from '../../src/host/network/policy.js';
import { POLICY_PROPERTIES } from '../../src/host/network/policy-schema.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface ServerConfig {
  server: {
    /** Address to listen on (default 127.0.0.1: pages of other machines cannot reach it). */
    host: string;
    /** Port (0: any free port). */
    port: number;
    /** The built web app to serve (dist/web). */
    web: string;
    /** How long a graceful shutdown waits for requests in flight. */
    shutdownMs: number;
  };
  log: { level: (typeof LOG_LEVELS)[number] };
  /** The gateway's policy (docs/network.md) and its limits. */
  network: Omit<NetworkPolicy, 'onRequest' | 'secrets'> & {
    /** Secrets the gateway injects for bound hosts, read from the server's environment or files at start. */
    secrets?: SecretSource[];
    allowedHosts: string[];
    blockedHosts: string[];
    /** DNS servers for the gateway's lookups (default: the system's resolver). */
    dnsServers?: string[];
    /** Largest upstream response body the gateway passes on. */
    responseBytes: number;
    /** Largest request (hop envelope and body) a page may send. */
    requestBytes: number;
    /** Longest one hop may take upstream, from the request to the end of the response body (ms). */
    hopTimeoutMs: number;
  };
  audit: {
    /** The audit log (hash-chained JSONL, docs/audit.md); without one, events are kept in memory only. */
    file?: string;
    /** Rotate the log file at this size. */
    maxBytes: number;
    /** A signer key file (airlock audit keygen) for the log's checkpoints; without one, none are signed. */
    keyFile?: string;
    /** Events kept in memory for the query API (the newest). */
    memoryEvents: number;
  };
  /** The MCP server at /mcp (docs/mcp.md): each client session gets its own sandbox. */
  mcp: {
    /** A file holding the bearer token clients must send (or AIRLOCK_MCP_TOKEN); without one, /mcp is off. */
    tokenFile?: string;
    maxSessions: number;
    /** A session without a request for this long ends and its sandbox is destroyed. */
    idleMs: number;
    /** Limits of each session's sandbox (docs/limits.md); the rest keep their defaults. */
    limits?: Record<string, number>;
    /** Tools each session's sandbox may run (all when omitted). */
    allowedTools?: string[];
  };
  /** Host extensions the server runs for browser sandboxes (docs/extensions.md). */
  extensions: {
    hosted: HostedExtensionConfig[];
  };
  /** The gates service (docs/gates.md). */
  gates: {
    /** The only directory whose subdirectories pages may gate; without it, page gate runs are refused. */
    workspaces?: string;
    /** Where gate runs are kept (default: the CLI's, ~/.local/share/airlock/gates). */
    dir?: string;
  };
  /** The gate queue (docs/gates.md, "Workers on other machines"): without a URL, gates run in-process. */
  queue: {
    /** redis://[user:password@]HOST:PORT[/DB] or rediss://… (TLS): gate runs are enqueued for `airlock gate worker`s. */
    url?: string;
    /** The base URL workers reach this server's run endpoints at (default: http://server.host:port). */
    advertise?: string;
    /** Where workspace artifacts wait for their worker (default: the system's temp dir). */
    scratchDir?: string;
  };
  /** The agents service (docs/agents.md): agent phases run by the server, which holds the provider keys. */
  agents: {
    /** A file holding the bearer token callers must send (or AIRLOCK_AGENTS_TOKEN); without one, the routes are off. */
    tokenFile?: string;
    /** The only directory whose subdirectories agents may work on; without it, runs are refused. */
    workspaces?: string;
    /** Where each phase's JSONL event log is written. */
    sessionsDir?: string;
    /** Phases running at once at most; more are refused (503). */
    maxRuns: number;
    /** Where a provider's requests go (default: its real API); the keys come from the server's environment. */
    providers?: Partial<Record<'anthropic' | 'openai' | 'openrouter', { upstream: string }>>;
  };
}

/** One server-hosted extension: a JS/TS module's handler, or a host executable. */
export interface HostedExtensionConfig {
  name: string;
  description: string;
  /** A module exporting the handler (`export` names it; default: the default export, else `handler`). */
  module?: string;
  export?: string;
  /** An executable and its first arguments; the sandbox's arguments follow, its stdin is piped in. */
  command?: string[];
  /** The executable's working directory and environment (it gets only this environment, and PATH). */
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  maxStdinBytes?: number;
  maxOutputBytes?: number;
}

/** A secret as configured: where its value comes from, and what it is bound to (secrets.ts). */
export interface SecretSource {
  name: string;
  env?: string;
  file?: string;
  hosts: string[];
  paths?: string[];
  header: string;
  template: string;
  when?: 'web-search';
}

export function defaultConfig(): ServerConfig {
  return {
    server: { host: '127.0.0.1', port: 4173, web: 'dist/web', shutdownMs: 10_000 },
    log: { level: 'info' },
    network: { allowedHosts: [], blockedHosts: [], responseBytes: DEFAULT_LIMITS.networkResponseBytes, requestBytes: 16 * 1024 * 1024, hopTimeoutMs: 120_000 },
    audit: { maxBytes: 64 * 1024 * 1024, memoryEvents: 100_000 },
    mcp: { maxSessions: MCP_LIMITS.maxSessions, idleMs: MCP_LIMITS.idleMs },
    extensions: { hosted: [] },
    gates: {},
    queue: {},
    agents: { maxRuns: AGENT_LIMITS.serverRuns },
  };
}

/** An object of only these keys (each optional unless `required` names it). */
function closed<const P extends Record<string, unknown>>(properties: P, required?: readonly string[]) {
  return { type: 'object', additionalProperties: false, ...(required === undefined ? {} : { required }), properties } as const;
}

const text = { type: 'string', minLength: 1 } as const;
const atLeast = <const N extends number>(minimum: N) => ({ type: 'integer', minimum }) as const;
const hostList = { type: 'array', items: text } as const;

/** The schema of a configuration file: every key optional, no unknown key anywhere. */
export const CONFIG_SCHEMA = closed({
  server: closed({
    host: text,
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    web: text,
    shutdownMs: atLeast(0),
  }),
  log: closed({ level: { enum: [...LOG_LEVELS] } }),
  network: closed({
    ...POLICY_PROPERTIES,
    secrets: {
      type: 'array',
      items: closed(
        {
          name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
          env: text,
          file: text,
          hosts: hostList,
          paths: { type: 'array', items: { type: 'string', pattern: '^/' } },
          header: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
          template: text,
          when: { enum: ['web-search'] },
        },
        ['name', 'hosts', 'header', 'template'],
      ),
    },
    dnsServers: hostList,
    responseBytes: atLeast(1),
    requestBytes: atLeast(1),
    hopTimeoutMs: atLeast(1),
  }),
  audit: closed({
    file: text,
    maxBytes: atLeast(4096),
    keyFile: text,
    memoryEvents: atLeast(1),
  }),
  mcp: closed({
    tokenFile: text,
    maxSessions: atLeast(1),
    idleMs: atLeast(1000),
    limits: { type: 'object', additionalProperties: { type: 'number', exclusiveMinimum: 0 } },
    allowedTools: { type: 'array', items: text },
  }),
  extensions: closed({
    hosted: {
      type: 'array',
      items: closed(
        {
          name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_-]{0,63}$' },
          description: { type: 'string' },
          module: text,
          export: text,
          command: { type: 'array', minItems: 1, items: text },
          cwd: text,
          env: { type: 'object', additionalProperties: { type: 'string' } },
          timeoutMs: { type: 'integer', minimum: 1, maximum: EXTENSION_LIMITS.maxTimeoutMs },
          maxStdinBytes: { type: 'integer', minimum: 1, maximum: EXTENSION_LIMITS.maxStdinBytes },
          maxOutputBytes: { type: 'integer', minimum: 1, maximum: EXTENSION_LIMITS.maxOutputBytes },
        },
        ['name', 'description'],
      ),
    },
  }),
  gates: closed({
    workspaces: text,
    dir: text,
  }),
  queue: closed({
    url: { type: 'string', pattern: '^rediss?://' },
    advertise: { type: 'string', pattern: '^https?://[^/?#]+$' },
    scratchDir: text,
  }),
  agents: closed({
    tokenFile: text,
    workspaces: text,
    sessionsDir: text,
    maxRuns: atLeast(1),
    providers: closed(Object.fromEntries(['anthropic', 'openai', 'openrouter'].map((name) => [name, closed({ upstream: { type: 'string', pattern: '^https?://' } }, ['upstream'])]))),
  }),
});
