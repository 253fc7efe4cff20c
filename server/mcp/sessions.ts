// The MCP sessions a server holds: at most `maxSessions` at once (the next client is told
// so, clearly, and gets nothing), each ended and its sandboxes destroyed when its client
// disconnects (stdio closes, HTTP DELETE) or after `idleMs` without a request.

import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MCP_LIMITS } from '../../src/protocol/limits.js';
import type { NodeSandboxOptions } from '../../src/host/node/index.js';
import type { RunGateOptions } from './run-gate.js';
import { McpSession } from './session.js';
import { registerSandboxTools } from './tools.js';

export interface McpSessionsOptions {
  /** What each session's sandbox gets: limits, allowedTools, network, dnsServers. */
  sandbox: NodeSandboxOptions;
  maxSessions?: number;
  idleMs?: number;
  gate?: RunGateOptions;
  /** Called when a session ends (disconnect or idle), after its sandboxes are gone. */
  onEnd?: (id: string, why: 'closed' | 'idle') => void;
}

export class McpSessionsFull extends Error {
  constructor(readonly max: number) {
    super(`the MCP server already has ${max} sessions (mcp.maxSessions); try again when one ends`);
    this.name = 'McpSessionsFull';
  }
}

/** How the server names itself to clients. */
export const SERVER_INFO = { name: 'airlock', version: '0.1.0' } as const;

export interface OpenSession {
  session: McpSession;
  server: McpServer;
}

export class McpSessions {
  private readonly open = new Map<string, OpenSession & { onIdle: () => void }>();
  private readonly timer: NodeJS.Timeout;
  private opening = 0;
  readonly maxSessions: number;
  readonly idleMs: number;

  constructor(private readonly options: McpSessionsOptions) {
    this.maxSessions = options.maxSessions ?? MCP_LIMITS.maxSessions;
    this.idleMs = options.idleMs ?? MCP_LIMITS.idleMs;
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(60_000, this.idleMs / 4)));
    this.timer.unref();
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Opens a session with its own sandbox and an MCP server with the sandbox tools.
   * `onIdle` is told when the session timed out (to close its transport). Throws McpSessionsFull.
   */
  async create(onIdle: () => void = () => undefined, id: string = randomUUID()): Promise<OpenSession> {
    if (this.open.size + this.opening >= this.maxSessions) throw new McpSessionsFull(this.maxSessions);
    this.opening += 1;
    try {
      const session = await McpSession.open(id, this.options.sandbox);
      const server = new McpServer(SERVER_INFO, { instructions: 'Each session has its own Airlock sandbox (a bash-compatible shell, coreutils and python3 in WebAssembly, files in /home/user). Nothing runs on the host.' });
      registerSandboxTools(server, session, this.options.gate);
      this.open.set(id, { session, server, onIdle });
      return { session, server };
    } finally {
      this.opening -= 1;
    }
  }

  get(id: string): OpenSession | undefined {
    const found = this.open.get(id);
    if (found !== undefined) found.session.lastActive = Date.now();
    return found;
  }

  /** Ends a session: its MCP server closed, its sandboxes destroyed. */
  async close(id: string, why: 'closed' | 'idle' = 'closed'): Promise<void> {
    const found = this.open.get(id);
    if (found === undefined) return;
    this.open.delete(id);
    await found.server.close().catch(() => undefined);
    await found.session.close();
    this.options.onEnd?.(id, why);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, entry] of this.open) {
      if (now - entry.session.lastActive < this.idleMs) continue;
      entry.onIdle();
      void this.close(id, 'idle');
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.open.keys()].map((id) => this.close(id)));
  }
}
