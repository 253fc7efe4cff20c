// One MCP client's sandboxes: its own sandbox ('main') and the forks it made, each a
// separate Airlock sandbox with the limits, tool allowlist and network policy of the
// server's configuration. Nothing is shared between clients: a session's sandboxes are
// created for it and destroyed with it.

import { MCP_LIMITS } from '../../src/protocol/limits.js';
import { Sandbox, type NodeSandboxOptions } from '../../src/host/node/index.js';

/** A tool error the client should see as such (isError), with a message naming the problem. */
export class McpToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpToolError';
  }
}

export class McpSession {
  private readonly sandboxes = new Map<string, Sandbox>();
  private nextFork = 1;
  private closed = false;
  lastActive = Date.now();

  private constructor(
    readonly id: string,
    private readonly options: NodeSandboxOptions,
  ) {}

  static async open(id: string, options: NodeSandboxOptions): Promise<McpSession> {
    const session = new McpSession(id, options);
    session.sandboxes.set('main', await Sandbox.create({ ...options, sessionId: `mcp-${id}` }));
    return session;
  }

  /** The sandbox called `name` ('main' or a fork's name). */
  sandbox(name = 'main'): Sandbox {
    if (this.closed) throw new McpToolError('this MCP session has ended');
    this.lastActive = Date.now();
    const found = this.sandboxes.get(name);
    if (found === undefined) throw new McpToolError(`no sandbox named ${JSON.stringify(name)} in this session (have: ${[...this.sandboxes.keys()].join(', ')})`);
    return found;
  }

  /** Forks `from` (its files and shell state now); returns the fork's name. */
  async fork(from = 'main'): Promise<string> {
    const source = this.sandbox(from);
    if (this.sandboxes.size - 1 >= MCP_LIMITS.maxForks) throw new McpToolError(`this session already has ${MCP_LIMITS.maxForks} forks (MCP_LIMITS.maxForks); end one with close_fork first`);
    const fork = await source.fork();
    const name = `fork-${this.nextFork++}`;
    this.sandboxes.set(name, fork);
    return name;
  }

  async closeFork(name: string): Promise<void> {
    if (name === 'main') throw new McpToolError("the session's own sandbox ('main') ends with the session");
    const sandbox = this.sandbox(name);
    this.sandboxes.delete(name);
    await sandbox.destroy();
  }

  get names(): string[] {
    return [...this.sandboxes.keys()];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const all = [...this.sandboxes.values()];
    this.sandboxes.clear();
    await Promise.allSettled(all.map((s) => s.destroy()));
  }

  /** The options new sandboxes of this session get (for tests and diagnostics). */
  get sandboxOptions(): Readonly<NodeSandboxOptions> {
    return this.options;
  }
}
