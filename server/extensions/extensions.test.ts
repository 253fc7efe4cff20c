// The extensions service on a real server (loopback, port 0): the configured extensions —
// a JS module, a TS module, a host executable — listed and called the way a page does
// (page token only), with the same limits and audit events as in a Node sandbox.

import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSION_CALL_PATH, EXTENSIONS_LIST_PATH, type ExtensionCallReply } from '../../src/protocol/extensions.js';
import { AUDIT_EVENTS_PATH } from '../../src/protocol/audit/api.js';
import { PAGE_TOKEN_HEADER } from '../../src/protocol/server.js';
import { startServer, type RunningServer } from '../main.js';
import { scratchWebRoot, testServerConfig } from '../test-server.js';
import { loadHostedExtensions } from './index.js';

let dir: string;
let server: RunningServer;
let token: string;

async function call(name: string, args: string[] = [], stdin = '', headers?: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string; exitCode: number; message?: string }> {
  const response = await fetch(new URL(EXTENSION_CALL_PATH, server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(headers ?? { [PAGE_TOKEN_HEADER]: token }) },
    body: JSON.stringify({ name, args, env: {}, cwd: '/home/user', stdin: Buffer.from(stdin).toString('base64'), sessionId: 'sb-test' }),
  });
  const body = (await response.json()) as ExtensionCallReply & { message?: string };
  return { status: response.status, stdout: Buffer.from(body.stdout ?? '', 'base64').toString(), stderr: Buffer.from(body.stderr ?? '', 'base64').toString(), exitCode: body.exitCode, message: body.message };
}

beforeAll(async () => {
  dir = await scratchWebRoot('airlock-extensions-server-');
  server = await startServer(
    testServerConfig(dir, {
      extensions: {
        hosted: [
          { name: 'shout', description: 'shout: capitals', module: 'tests/extensions/shout.mjs' },
          { name: 'count', description: 'count: bytes', module: 'tests/extensions/count.ts', export: 'count', maxStdinBytes: 1000 },
          { name: 'rev', description: 'rev: a host executable', command: ['/usr/bin/rev'] },
          { name: 'slow', description: 'slow: sleeps', command: ['/bin/sleep'], timeoutMs: 300 },
        ],
      },
    }),
  );
  token = server.tokens.mint();
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the extensions service', () => {
  it('lists the configured extensions with their limits', async () => {
    const response = await fetch(new URL(EXTENSIONS_LIST_PATH, server.url), { headers: { [PAGE_TOKEN_HEADER]: token } });
    const list = (await response.json()) as Array<{ name: string; maxStdinBytes: number }>;
    expect(list.map((entry) => entry.name)).toEqual(['shout', 'count', 'rev', 'slow']);
    expect(list[1]).toMatchObject({ name: 'count', description: 'count: bytes', maxStdinBytes: 1000, timeoutMs: 30_000 });
  });

  it('runs a JS module’s handler, and a throw is status 1 with its message', async () => {
    expect(await call('shout', ['hi'])).toMatchObject({ status: 200, stdout: 'HI\n', exitCode: 0 });
    expect(await call('shout', [], 'from stdin\n')).toMatchObject({ stdout: 'FROM STDIN\n' });
    expect(await call('shout', ['fail'])).toMatchObject({ exitCode: 1, stderr: 'shout: shout refuses to shout fail\n' });
  });

  it('runs a TypeScript module’s named export, with its stdin cap', async () => {
    expect(await call('count', [], 'x'.repeat(1000))).toMatchObject({ stdout: '1000\n', exitCode: 0 });
    const over = await call('count', [], 'x'.repeat(1001));
    expect(over.status).toBe(413);
    expect(over.message).toContain('maxStdinBytes');
  });

  it('runs a host executable with the arguments and stdin, and cuts a slow one at its timeout', async () => {
    expect(await call('rev', [], 'abc\n')).toMatchObject({ stdout: 'cba\n', exitCode: 0 });
    expect(await call('slow', ['5'])).toMatchObject({ exitCode: 124, stderr: 'slow: timed out after 300 ms (timeoutMs)\n' });
  });

  it('refuses names it does not host, and requests that are not from its pages', async () => {
    expect(await call('secrets')).toMatchObject({ exitCode: 127, stderr: 'airlock: secrets: no extension of that name is registered\n' });
    expect((await call('shout', ['x'], '', {})).status).toBe(403);
  });

  it('records every call as an audit event of the page’s session', async () => {
    const response = await fetch(new URL(`${AUDIT_EVENTS_PATH}?session=sb-test&type=extension.called`, server.url), { headers: { [PAGE_TOKEN_HEADER]: token } });
    const { events } = (await response.json()) as { events: Array<{ event: Record<string, unknown> }> };
    expect(events.map(({ event }) => [event.name, event.exitCode, event.source])).toContainEqual(['shout', 0, 'server']);
    expect(events.map(({ event }) => event.outcome)).toContain('timeout');
  });

  it('stops the server at start for an entry with both or neither of module and command', async () => {
    await expect(loadHostedExtensions([{ name: 'x', description: 'x' }])).rejects.toThrow('extensions.hosted x: give exactly one of module or command');
    await expect(loadHostedExtensions([{ name: 'x', description: 'x', module: 'tests/extensions/shout.mjs', export: 'nope' }])).rejects.toThrow(/exports no function nope/);
  });
});
