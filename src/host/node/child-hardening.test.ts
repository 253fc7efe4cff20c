// The Node sandbox child's walls, checked from inside: a probe script started with exactly
// the command line the host uses for the kernel (childCommand) tries to get out.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childCommand } from './child-process.js';
import { osSandbox } from './os-sandbox.js';

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
const env = { ...process.env };
attempt('writeFile', () => writeFileSync(process.env.ESCAPE_FILE ?? '/tmp/airlock-escape-' + process.pid, 'x'));
attempt('spawn', () => spawnSync('/bin/true').error ?? 'ran');
// Workers are allowed (Python runs in one, docs/architecture.md §1) and inherit the walls.
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
report.env = env;
report.fetch = typeof globalThis.fetch;
report.process = typeof globalThis.process;
report.removed = removed;
const option = (name) => argv.find((a) => a.startsWith('--' + name + '='))?.slice(name.length + 3);
// Each target must refuse: loopback TCP, a Unix socket path on the host, an abstract Unix socket.
const tryConnect = (options) => new Promise((resolve) => {
  const socket = connect(options);
  socket.on('connect', () => { socket.end('escaped'); resolve('connected'); });
  socket.on('error', (e) => resolve('refused: ' + e.code));
});
const network = async () => {
  report.network = await tryConnect({ host: '127.0.0.1', port: Number(option('port')) });
  report.unixSocket = await tryConnect({ path: option('unix') });
  report.abstractSocket = await tryConnect({ path: '\0' + option('abstract') });
  report.worker = await workerReport;
  print(JSON.stringify(report));
};
void network();
`;

let dir: string;
let bundle: string;
let port: number;
let unixPath: string;
let socketDir: string;
const abstractName = `airlock-hardening-${process.pid}`;
/** What reached the host: must stay empty. */
const reached: string[] = [];
const listener = (label: string): Server => createServer((socket) => {
  reached.push(label);
  socket.end();
});
const server = listener('tcp');
const unixServer = listener('unix');
const abstractServer = listener('abstract');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-hardening-'));
  writeFileSync(join(dir, 'probe.mjs'), probeSource);
  writeFileSync(join(dir, 'harden.ts'), `export * from ${JSON.stringify(fileURLToPath(new URL('../../../workers/harden.ts', import.meta.url)))};`);
  bundle = join(dir, 'bundle.mjs');
  await build({ entryPoints: [join(dir, 'probe.mjs')], outfile: bundle, bundle: true, platform: 'node', format: 'esm', logLevel: 'error' });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  // Outside every directory the child may read: a host socket it must not even see.
  socketDir = mkdtempSync(join(tmpdir(), 'airlock-host-socket-'));
  unixPath = join(socketDir, 'host.sock');
  await new Promise<void>((resolve) => unixServer.listen(unixPath, resolve));
  await new Promise<void>((resolve) => abstractServer.listen(`\0${abstractName}`, resolve));
});

afterAll(() => {
  server.close();
  unixServer.close();
  abstractServer.close();
  rmSync(socketDir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

describe('the Node sandbox child', () => {
  it('cannot write files, start processes (also from a worker), generate code, read the host env or reach the network', () => {
    const { program, args, isolation } = childCommand({ bundle, wasmDir: dir, messageBytes: 1024, isolateNetwork: true });
    const canary = join(dir, 'escaped');
    // The probe reads its targets from its arguments.
    const result = spawnSync(program, [...args, `--port=${port}`, `--unix=${unixPath}`, `--abstract=${abstractName}`], { encoding: 'utf8', env: {}, timeout: 60_000 });
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report.writeFile).toBe('denied: ERR_ACCESS_DENIED');
    expect(report.spawn).toBe('denied: ERR_ACCESS_DENIED');
    expect(report.worker).toEqual({ writeFile: 'denied: ERR_ACCESS_DENIED', spawn: 'denied: ERR_ACCESS_DENIED', eval: 'denied: EvalError' });
    expect(report.eval).toMatch(/^denied: EvalError/);
    expect(report.Function).toMatch(/^denied: EvalError/);
    // Nothing of the host's environment (bubblewrap sets only PWD, to /).
    expect(report.env).toEqual(isolation.mechanism === 'bubblewrap' ? { PWD: '/' } : {});
    expect(report.fetch).toBe('undefined');
    expect(report.process).toBe('undefined');
    expect(existsSync(canary)).toBe(false);
    if (isolation.network) {
      expect(report.network).toMatch(/^refused: /);
      expect(report.abstractSocket).toMatch(/^refused: /);
    }
    if (isolation.filesystem) expect(report.unixSocket).toMatch(/^refused: /);
    expect(reached).toEqual([]);
  });
});

// The OS layer alone (os-sandbox.ts), without the realm's own walls: a plain `node -e`
// under the same prefix, as a test hook, sees what the child's mount, PID and user
// namespaces give it.
describe.skipIf(!existsSync('/usr/bin/bwrap'))('the OS layer (bubblewrap)', () => {
  it('is what this machine gives: every wall, nothing missing', () => {
    // The cgroup's walls (memory ceiling, CPU bound) have their own tests: cgroup.test.ts.
    const { isolation } = childCommand({ bundle, wasmDir: dir, messageBytes: 1024, isolateNetwork: true });
    expect(isolation).toMatchObject({ mechanism: 'bubblewrap', network: true, filesystem: true, processes: true });
    expect(isolation.missing.filter((wall) => !wall.startsWith('memory ceiling and CPU bound:'))).toEqual([]);
  });

  it('shows the child only what it must read, read-only: no /tmp, /run, home or host socket', () => {
    const { prefix } = osSandbox({ readable: [dir], isolateNetwork: true });
    const view = `
      const fs = require('node:fs');
      const exists = (p) => fs.existsSync(p);
      let write;
      try { fs.writeFileSync(${JSON.stringify(join(dir, 'written'))}, 'x'); write = 'allowed'; } catch (e) { write = e.code; }
      console.log(JSON.stringify({
        root: fs.readdirSync('/').sort(),
        tmp: exists('/tmp') ? fs.readdirSync('/tmp') : [], run: exists('/run'), home: exists('/root') || exists('/home'), passwd: exists('/etc/passwd'),
        socket: exists(${JSON.stringify(unixPath)}), ownFiles: exists(${JSON.stringify(join(dir, 'probe.mjs'))}),
        processes: fs.readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n)).length,
        uid: process.getuid(), write,
      }));`;
    const [program, ...args] = [...prefix, process.execPath, '-e', view];
    const result = spawnSync(program ?? '', args, { encoding: 'utf8', env: {}, timeout: 60_000 });
    expect(result.stderr).toBe('');
    const seen = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(seen.root).not.toContain('run');
    expect(seen.root).not.toContain('home');
    // /tmp holds only the directory given to it (here the test's; in use, the snapshot file's).
    expect(seen).toMatchObject({ tmp: [basename(dir)], run: false, home: false, passwd: false, socket: false, ownFiles: true, write: 'EROFS' });
    // Its own PID namespace: bubblewrap's init and node itself, nothing of the host's.
    expect(seen.processes).toBeLessThanOrEqual(3);
    expect(seen.uid).not.toBe(0);
    expect(existsSync(join(dir, 'written'))).toBe(false);
  });
});
