// The wasm backend's trace holds every network request exactly, allowed or refused, beside
// every exec: a request to a loopback upstream opened by an exact host:port exception in
// the spec's egress allowlist (answered), and one to a loopback port the allowlist does not
// name (refused before any connection: a listener there must see nothing). Everything
// listens on 127.0.0.1.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEntry } from '../contract.js';
import { parseSandboxSpec } from '../spec.js';
import { WasmSandboxClient } from './wasm-client.js';

function listen(server: Server | TcpServer): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

describe('wasm backend: the network trace', () => {
  let scratch: string;
  let upstream: Server;
  let upstreamPort: number;
  const upstreamPaths: string[] = [];
  let tripwire: TcpServer;
  let tripwirePort: number;
  let tripwireConnections = 0;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'airlock-wasm-trace-'));
    upstream = createServer((request, response) => {
      upstreamPaths.push(request.url ?? '');
      response.end('hello from upstream\n');
    });
    upstreamPort = await listen(upstream);
    tripwire = createTcpServer((socket) => {
      tripwireConnections += 1;
      socket.destroy();
    });
    tripwirePort = await listen(tripwire);
  });
  afterAll(async () => {
    await new Promise((resolve) => upstream.close(resolve));
    await new Promise((resolve) => tripwire.close(resolve));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('records the allowed request and the refused one, in order, with the execs', async () => {
    const allowed = `http://127.0.0.1:${upstreamPort}/allowed?x=1`;
    const refused = `http://127.0.0.1:${tripwirePort}/refused`;
    const spec = parseSandboxSpec({
      network: 'scoped', egressAllowlist: [`127.0.0.1:${upstreamPort}`], enableTrace: true,
      phases: [{ name: 'net', argv: ['bash', '-c', `curl -sS ${allowed}; echo "allowed=$?"; curl -sS ${refused}; echo "refused=$?"`] }],
    });
    const run = await new WasmSandboxClient(join(scratch, 'runs')).execute(spec);
    const stdout = readFileSync(run.phases[0]?.stdoutPath ?? '', 'utf8');
    expect(stdout).toContain('hello from upstream\nallowed=0\n');
    expect(stdout).toMatch(/refused=[1-9]/);
    expect(upstreamPaths).toEqual(['/allowed?x=1']);
    expect(tripwireConnections).toBe(0);
    const entries = readFileSync(run.tracePath ?? '', 'utf8').trim().split('\n').map((line) => JSON.parse(line) as TraceEntry);
    expect(entries.filter((entry) => entry.kind === 'request')).toEqual([
      { kind: 'request', method: 'GET', url: allowed },
      { kind: 'request', method: 'GET', url: refused },
    ]);
    // Each request follows the exec of the curl that made it.
    const order = entries.map((entry) => (entry.kind === 'exec' ? `exec ${entry.argv[0] ?? ''}` : entry.kind === 'request' ? `request ${entry.url}` : 'connect'));
    const curls = order.flatMap((line, index) => (line === 'exec curl' ? [index] : []));
    expect(curls).toHaveLength(2);
    expect(order.indexOf(`request ${allowed}`)).toBeGreaterThan(curls[0] ?? Infinity);
    expect(order.indexOf(`request ${refused}`)).toBeGreaterThan(curls[1] ?? Infinity);
  });

  it('a phase with network none has its request traced and refused, even in a scoped run', async () => {
    const url = `http://127.0.0.1:${upstreamPort}/offline`;
    const spec = parseSandboxSpec({
      network: 'scoped', egressAllowlist: [`127.0.0.1:${upstreamPort}`], enableTrace: true,
      phases: [{ name: 'offline', network: 'none', argv: ['bash', '-c', `curl -sS ${url}; echo "offline=$?"`] }],
    });
    const run = await new WasmSandboxClient(join(scratch, 'runs')).execute(spec);
    expect(readFileSync(run.phases[0]?.stdoutPath ?? '', 'utf8')).toMatch(/offline=[1-9]/);
    expect(upstreamPaths).not.toContain('/offline');
    const entries = readFileSync(run.tracePath ?? '', 'utf8').trim().split('\n').map((line) => JSON.parse(line) as TraceEntry);
    expect(entries.filter((entry) => entry.kind === 'request')).toEqual([{ kind: 'request', method: 'GET', url }]);
  });
});
