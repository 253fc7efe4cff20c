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

const hostList = { type: 'array', items: { type: 'string', minLength: 1 } };

/** The schema of a configuration file: every key optional, no unknown key anywhere. */
export const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    server: {
      type: 'object',
      additionalProperties: false,
      properties: {
        host: { type: 'string', minLength: 1 },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        web: { type: 'string', minLength: 1 },
        shutdownMs: { type: 'integer', minimum: 0 },
      },
    },
    log: {
      type: 'object',
      additionalProperties: false,
      properties: { level: { enum: [...LOG_LEVELS] } },
    },
    network: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ...POLICY_PROPERTIES,
        secrets: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'hosts', 'header', 'template'],
            properties: {
              name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
              env: { type: 'string', minLength: 1 },
              file: { type: 'string', minLength: 1 },
              hosts: hostList,
              paths: { type: 'array', items: { type: 'string', pattern: '^/' } },
              header: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
              template: { type: 'string', minLength: 1 },
              when: { enum: ['web-search'] },
            },
          },
        },
        dnsServers: hostList,
        responseBytes: { type: 'integer', minimum: 1 },
        requestBytes: { type: 'integer', minimum: 1 },
        hopTimeoutMs: { type: 'integer', minimum: 1 },
      },
    },
    audit: {
      type: 'object',
      additionalProperties: false,
      properties: {
        file: { type: 'string', minLength: 1 },
        maxBytes: { type: 'integer', minimum: 4096 },
        keyFile: { type: 'string', minLength: 1 },
        memoryEvents: { type: 'integer', minimum: 1 },
      },
    },
    mcp: {
      type: 'object',
      additionalProperties: false,
      properties: {
        tokenFile: { type: 'string', minLength: 1 },
        maxSessions: { type: 'integer', minimum: 1 },
        idleMs: { type: 'integer', minimum: 1000 },
        limits: { type: 'object', additionalProperties: { type: 'number', exclusiveMinimum: 0 } },
        allowedTools: { type: 'array', items: { type: 'string', minLength: 1 } },
      },
    },
    extensions: {
      type: 'object',
      additionalProperties: false,
      properties: {
        hosted: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'description'],
            properties: {
              name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_-]{0,63}$' },
              description: { type: 'string' },
              module: { type: 'string', minLength: 1 },
              export: { type: 'string', minLength: 1 },
              command: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
              cwd: { type: 'string', minLength: 1 },
              env: { type: 'object', additionalProperties: { type: 'string' } },
              timeoutMs: { type: 'integer', minimum: 1, maximum: EXTENSION_LIMITS.maxTimeoutMs },
              maxStdinBytes: { type: 'integer', minimum: 1, maximum: EXTENSION_LIMITS.maxStdinBytes },
              maxOutputBytes: { type: 'integer', minimum: 1, maximum: EXTENSION_LIMITS.maxOutputBytes },
            },
          },
        },
      },
    },
    gates: {
      type: 'object',
      additionalProperties: false,
      properties: {
        workspaces: { type: 'string', minLength: 1 },
        dir: { type: 'string', minLength: 1 },
      },
    },
    queue: {
      type: 'object',
      additionalProperties: false,
      properties: {
        url: { type: 'string', pattern: '^rediss?://' },
        advertise: { type: 'string', pattern: '^https?://[^/?#]+$' },
        scratchDir: { type: 'string', minLength: 1 },
      },
    },
    agents: {
      type: 'object',
      additionalProperties: false,
      properties: {
        tokenFile: { type: 'string', minLength: 1 },
        workspaces: { type: 'string', minLength: 1 },
        sessionsDir: { type: 'string', minLength: 1 },
        maxRuns: { type: 'integer', minimum: 1 },
        providers: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(['anthropic', 'openai', 'openrouter'].map((name) => [name, { type: 'object', additionalProperties: false, required: ['upstream'], properties: { upstream: { type: 'string', pattern: '^https?://' } } }])),
        },
      },
    },
  },
} as const;
