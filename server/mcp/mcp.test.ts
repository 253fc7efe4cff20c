// The MCP server driven by the SDK's own client: over stdio (`airlock mcp` as a process) and
// over streamable HTTP at /mcp on the server (token, two concurrent clients that cannot see
// each other's files, the session cap, cleanup on disconnect and on idle).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverConfig, startServer, type RunningServer } from '../main.js';
import { McpSessions } from './sessions.js';

const TIMEOUT = 300_000;
const root = fileURLToPath(new URL('../..', import.meta.url));

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult & { text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { ...result, text: first !== undefined && first.type === 'text' ? first.text : '' };
}

describe('MCP over stdio: airlock mcp', { timeout: TIMEOUT }, () => {
  let client: Client;
  let transport: StdioClientTransport;

  beforeAll(async () => {
    transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', join(root, 'tests/mcp/cli-entry.ts'), 'mcp'], cwd: root, stderr: 'inherit' });
    client = new Client({ name: 'airlock-test', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
  });

  it('lists the sandbox tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['close_fork', 'edit_file', 'fork', 'list_files', 'read_file', 'restore', 'run', 'run_gate', 'snapshot', 'write_file']);
  });

  it('runs commands: exit code, stdout, stderr, stdin', async () => {
    const result = await call(client, 'run', { command: 'read line; echo "got $line"; echo oops >&2; exit 3', stdin: 'hello\n' });
    expect(result.structuredContent).toEqual({ exitCode: 3, stdout: 'got hello\n', stderr: 'oops\n', truncated: false });
  });

  it('writes, reads, edits and lists files; edit_file fails clearly and changes nothing', async () => {
    await call(client, 'write_file', { path: '/home/user/src/app.py', content: 'x = 1\ny = 1\n' });
    expect((await call(client, 'read_file', { path: '/home/user/src/app.py' })).text).toBe('x = 1\ny = 1\n');
    const notUnique = await call(client, 'edit_file', { path: '/home/user/src/app.py', old_string: '= 1', new_string: '= 2' });
    expect(notUnique.isError).toBe(true);
    expect(notUnique.text).toMatch(/occurs 2 times/);
    const absent = await call(client, 'edit_file', { path: '/home/user/src/app.py', old_string: 'z = 1', new_string: 'z = 2' });
    expect(absent.isError).toBe(true);
    expect(absent.text).toMatch(/not found/);
    expect((await call(client, 'read_file', { path: '/home/user/src/app.py' })).text).toBe('x = 1\ny = 1\n');
    expect((await call(client, 'edit_file', { path: '/home/user/src/app.py', old_string: 'y = 1', new_string: 'y = 2' })).isError).toBeFalsy();
    expect((await call(client, 'run', { command: 'python3 -c "exec(open(\'src/app.py\').read()); print(x + y)"' })).structuredContent).toMatchObject({ exitCode: 0, stdout: '3\n' });
    const listed = await call(client, 'list_files', { recursive: true });
    expect((listed.structuredContent as { entries: Array<{ path: string; kind: string }> }).entries).toContainEqual(expect.objectContaining({ path: '/home/user/src/app.py', kind: 'file' }));
    const missing = await call(client, 'read_file', { path: '/home/user/nope.txt' });
    expect(missing.isError).toBe(true);
  });

  it('snapshots and restores; a fork goes its own way', async () => {
    await call(client, 'write_file', { path: 'state.txt', content: 'before' });
    const { snapshotId } = (await call(client, 'snapshot')).structuredContent as { snapshotId: number };
    await call(client, 'write_file', { path: 'state.txt', content: 'after' });
    const { sandbox: fork } = (await call(client, 'fork')).structuredContent as { sandbox: string };
    await call(client, 'restore', { snapshot_id: snapshotId });
    expect((await call(client, 'read_file', { path: 'state.txt' })).text).toBe('before');
    expect((await call(client, 'read_file', { path: 'state.txt', sandbox: fork })).text).toBe('after');
    await call(client, 'close_fork', { sandbox: fork });
    const gone = await call(client, 'read_file', { path: 'state.txt', sandbox: fork });
    expect(gone.isError).toBe(true);
    expect(gone.text).toMatch(/no sandbox named/);
  });

  it('runs a gate on the workspace', async () => {
    await call(client, 'write_file', { path: '.airlock/gate.yaml', content: 'test: "grep -q ok result.txt"\n' });
    const failed = await call(client, 'run_gate', { gate: 'tests' });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ outcome: 'escalated' });
    await call(client, 'write_file', { path: 'result.txt', content: 'ok\n' });
    expect((await call(client, 'run_gate', { gate: 'tests' })).structuredContent).toMatchObject({ outcome: 'passed', exitCode: 0 });
  });
});

describe('MCP over streamable HTTP: /mcp', { timeout: TIMEOUT }, () => {
  let server: RunningServer;
  let dir: string;
  const TOKEN = 'test-mcp-token-0123456789abcdef';
  const clients: Client[] = [];

  const connect = async (token = TOKEN): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> => {
    const transport = new StreamableHTTPClientTransport(new URL('mcp', server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'airlock-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-mcp-'));
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
    server = await startServer(serverConfig({ server: { port: 0, web: join(dir, 'web') }, log: { level: 'silent' }, mcp: { tokenFile: join(dir, 'token'), maxSessions: 2 } }));
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a client without the token', async () => {
    const response = await fetch(new URL('mcp', server.url), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }) });
    expect(response.status).toBe(401);
    expect(await response.text()).toMatch(/bearer token/);
    await expect(connect('wrong-token-wrong-token')).rejects.toThrow();
  });

  it('gives two concurrent clients their own sandboxes, caps sessions, and cleans up on disconnect', async () => {
    const a = await connect();
    const b = await connect();
    await Promise.all([call(a.client, 'write_file', { path: 'mine.txt', content: 'a secret of client A' }), call(b.client, 'write_file', { path: 'other.txt', content: 'B' })]);
    const [seenByA, seenByB] = await Promise.all([call(a.client, 'run', { command: 'ls /home/user; cat /home/user/*.txt' }), call(b.client, 'run', { command: 'ls /home/user; cat /home/user/*.txt' })]);
    expect((seenByA.structuredContent as { stdout: string }).stdout).toContain('a secret of client A');
    expect((seenByA.structuredContent as { stdout: string }).stdout).not.toContain('other.txt');
    expect((seenByB.structuredContent as { stdout: string }).stdout).not.toContain('mine.txt');
    expect((seenByB.structuredContent as { stdout: string }).stdout).not.toContain('a secret');
    expect((await call(b.client, 'read_file', { path: '/home/user/mine.txt' })).isError).toBe(true);

    await expect(connect()).rejects.toThrow(/already has 2 sessions/);
    await a.transport.terminateSession();
    await a.client.close();
    const c = await connect();
    expect((await call(c.client, 'run', { command: 'ls /home/user' })).structuredContent).toMatchObject({ exitCode: 0 });
    expect((await call(c.client, 'read_file', { path: '/home/user/mine.txt' })).isError).toBe(true);
  });
});

describe('MCP sessions', { timeout: TIMEOUT }, () => {
  it('end after their idle time, their sandboxes destroyed', async () => {
    const ended: string[] = [];
    const sessions = new McpSessions({ sandbox: {}, idleMs: 200, onEnd: (id, why) => ended.push(`${id}:${why}`) });
    let toldIdle = false;
    const { session } = await sessions.create(() => (toldIdle = true), 'idle-one');
    while (sessions.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(toldIdle).toBe(true);
    expect(ended).toEqual(['idle-one:idle']);
    expect(() => session.sandbox()).toThrow(/ended/);
    await sessions.closeAll();
  });
});
