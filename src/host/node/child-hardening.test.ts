// The Node sandbox child's walls, checked from inside: a probe script started with exactly
// the command line the host uses for the kernel (childCommand) tries to get out.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childCommand } from './child-process.js';

const probeSource = `
import { writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { connect } from 'node:net';
import { hardenRealm } from './harden.ts';

const report = {};
const attempt = (name, fn) => { try { report[name] = 'allowed: ' + String(fn()); } catch (e) { report[name] = 'denied: ' + (e.code ?? e.name); } };
const stdout = process.stdout;
const argv = process.argv;
const print = (text) => stdout.write(text);
const envCount = Object.keys(process.env).length;
attempt('writeFile', () => writeFileSync(process.env.ESCAPE_FILE ?? '/tmp/airlock-escape-' + process.pid, 'x'));
attempt('spawn', () => spawnSync('/bin/true').error ?? 'ran');
// Workers are allowed (Python runs in one, ARCHITECTURE.md §1) and inherit the walls.
const workerSource = "const { parentPort } = require('node:worker_threads'); const r = {}; " +
  "try { require('node:fs').writeFileSync(process.env.ESCAPE_FILE ?? '/tmp/airlock-escape-worker', 'x'); r.writeFile = 'allowed'; } catch (e) { r.writeFile = 'denied: ' + e.code; } " +
  "try { require('node:child_process').spawnSync('/bin/true'); r.spawn = 'allowed'; } catch (e) { r.spawn = 'denied: ' + e.code; } " +
  "try { r.eval = 'allowed: ' + eval('1 + 1'); } catch (e) { r.eval = 'denied: ' + e.name; } parentPort.postMessage(r);";
const workerReport = new Promise((resolve) => {
  try {
    const worker = new Worker(workerSource, { eval: true });
    worker.on('message', (r) => { resolve(r); void worker.terminate(); });
    worker.on('error', (e) => resolve({ error: String(e) }));
  } catch (e) {
    resolve({ started: 'denied: ' + (e.code ?? e.name) });
  }
});
const removed = hardenRealm();
attempt('eval', () => eval('1 + 1'));
attempt('Function', () => new Function('return 1')());
report.envCount = envCount;
report.fetch = typeof globalThis.fetch;
report.process = typeof globalThis.process;
report.removed = removed;
const port = Number(argv[argv.length - 1].split('=')[1]);
const socket = connect({ host: '127.0.0.1', port });
const done = async () => { report.worker = await workerReport; print(JSON.stringify(report)); };
socket.on('connect', () => { report.network = 'connected'; socket.destroy(); void done(); });
socket.on('error', (e) => { report.network = 'refused: ' + e.code; void done(); });
`;

let dir: string;
let bundle: string;
let port: number;
const server = createServer((socket) => socket.end());

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-hardening-'));
  writeFileSync(join(dir, 'probe.mjs'), probeSource);
  writeFileSync(join(dir, 'harden.ts'), `export * from ${JSON.stringify(fileURLToPath(new URL('../../../workers/harden.ts', import.meta.url)))};`);
  bundle = join(dir, 'bundle.mjs');
  await build({ entryPoints: [join(dir, 'probe.mjs')], outfile: bundle, bundle: true, platform: 'node', format: 'esm', logLevel: 'error' });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Node sandbox child', () => {
  it('cannot write files, start processes (also from a worker), generate code, read the host env or reach the network', () => {
    const { program, args } = childCommand({ bundle, wasmDir: dir, messageBytes: 1024, isolateNetwork: true });
    const canary = join(dir, 'escaped');
    // The probe reads its port from the last argument.
    const result = spawnSync(program, [...args, `--port=${port}`], { encoding: 'utf8', env: {}, timeout: 20_000 });
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report.writeFile).toBe('denied: ERR_ACCESS_DENIED');
    expect(report.spawn).toBe('denied: ERR_ACCESS_DENIED');
    expect(report.worker).toEqual({ writeFile: 'denied: ERR_ACCESS_DENIED', spawn: 'denied: ERR_ACCESS_DENIED', eval: 'denied: EvalError' });
    expect(report.eval).toMatch(/^denied: EvalError/);
    expect(report.Function).toMatch(/^denied: EvalError/);
    expect(report.envCount).toBe(0);
    expect(report.fetch).toBe('undefined');
    expect(report.process).toBe('undefined');
    expect(existsSync(canary)).toBe(false);
    if (program.endsWith('unshare')) expect(report.network).toMatch(/^refused: /);
  });
});
