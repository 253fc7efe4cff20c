// The sample registry (public/packages/, built from upstream sources by
// scripts/build-packages.mjs) served from loopback by the server itself (its pages service
// serves the web root, where public/ lands): its index is valid and matches the files, and
// `pkg install` of each program works, with the program running in the sandbox
// — Lua (errors caught by pcall: setjmp/longjmp through WebAssembly exceptions), SQLite's
// shell on a database file in the workspace, LZ4 compressing and decompressing through
// pipes.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, drainWarmPool } from '../../src/host/node/index.js';
import { parseIndex } from '../../src/kernel/packages/registry.js';
import { serverConfig, startServer, type RunningServer } from '../../server/main.js';

const folder = fileURLToPath(new URL('../../public/packages/', import.meta.url));
const indexText = readFileSync(`${folder}index.json`, 'utf8');
const TIMEOUT = 180_000;

describe('the sample registry', { timeout: TIMEOUT }, () => {
  let server: RunningServer | undefined;
  let host = '';
  let sandbox: Sandbox;

  beforeAll(async () => {
    // The server with public/ as its web root, as the built app (dist/web) has it.
    server = await startServer(serverConfig({ server: { host: '127.0.0.1', port: 0, web: fileURLToPath(new URL('../../public/', import.meta.url)) }, log: { level: 'silent' } }));
    host = new URL(server.url).host;
    sandbox = await Sandbox.create({ packages: { enabled: true, registry: `http://${host}/packages/index.json`, allowedHosts: [host] } });
  });

  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
    await server?.close();
  });

  it('lists three programs whose files match their size and sha256, by URLs relative to the index', () => {
    const index = parseIndex(indexText, 'http://registry.test/packages/index.json');
    expect(index.problems).toEqual([]);
    expect(index.entries.map((e) => e.name)).toEqual(['lua', 'sqlite3', 'lz4']);
    for (const entry of index.entries) {
      expect(entry.url).toBe(`http://registry.test/packages/${entry.name}-${entry.version}.wasm`);
      const bytes = readFileSync(`${folder}${entry.name}-${entry.version}.wasm`);
      expect(bytes.length).toBe(entry.size);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry.sha256);
      // Well under a few MB each: the repository carries them.
      expect(entry.size).toBeLessThan(2 * 1024 * 1024);
    }
  });

  it('resolves only http(s) URLs against the index; without a base a relative URL is refused', () => {
    const entry = (url: string) => JSON.stringify({ packages: [{ name: 'x', version: '1', description: '', url, sha256: '0'.repeat(64), size: 1, commands: ['x'] }] });
    expect(parseIndex(entry('../x.wasm'), 'https://r.test/a/index.json').entries[0]?.url).toBe('https://r.test/x.wasm');
    expect(parseIndex(entry('//other.test/x.wasm'), 'https://r.test/index.json').entries[0]?.url).toBe('https://other.test/x.wasm');
    expect(parseIndex(entry('file:///etc/passwd'), 'https://r.test/index.json').problems).toEqual(['x: its url is not an http(s) URL (or one relative to the index)']);
    expect(parseIndex(entry('x.wasm')).problems).toEqual(['x: its url is not an http(s) URL']);
  });

  it('is served by the server with its wasm media type', async () => {
    const index = await fetch(`http://${host}/packages/index.json`);
    expect(index.status).toBe(200);
    expect(await index.text()).toBe(indexText);
    const module = await fetch(`http://${host}/packages/lua-5.2.4.wasm`, { method: 'HEAD' });
    expect(module.headers.get('content-type')).toBe('application/wasm');
  });

  it('pkg search lists them', async () => {
    const result = await sandbox.run('pkg search');
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n').map((line) => line.split(' ')[0])).toEqual(['lua', 'lz4', 'sqlite3', '']);
  });

  it('installs Lua and runs it, errors and pcall included', async () => {
    expect((await sandbox.run('pkg install lua')).stdout).toBe('installed lua 5.2.4 (lua)\n');
    const result = await sandbox.run(`lua -e 'print(1+1)' && lua -e 'print(pcall(error, "boom")); print(select(2, pcall(function() return nil + 1 end)))'`);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('2\nfalse\tboom\n(command line):1: attempt to perform arithmetic on a nil value\n');
    const script = await sandbox.run(`cd /tmp && printf 'local t = {}\\nfor w in io.read("*a"):gmatch("%%a+") do t[#t+1] = w:upper() end\\nprint(table.concat(t, ","))\\n' > up.lua && echo 'one two three' | lua up.lua`);
    expect(script.stderr).toBe('');
    expect(script.stdout).toBe('ONE,TWO,THREE\n');
    const failed = await sandbox.run(`lua -e 'error("top")'`);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain('lua: (command line):1: top');
  });

  it("installs SQLite's shell and runs SQL, in memory and on a file in the workspace", async () => {
    expect((await sandbox.run('pkg install sqlite3')).stdout).toBe('installed sqlite3 3.52.0 (sqlite3)\n');
    expect((await sandbox.run("sqlite3 :memory: 'select 1+1'")).stdout).toBe('2\n');
    // A relative path names a file in the shell's working directory (scripts/packages/wasi-shims.c).
    const file = await sandbox.run(`cd /tmp && sqlite3 t.db 'create table t(x); insert into t values (3), (4);' && sqlite3 /tmp/t.db 'select sum(x) from t' && cd / && echo 'select count(*) from t;' | sqlite3 tmp/t.db`);
    expect(file).toMatchObject({ stderr: '', stdout: '7\n2\n' });
  });

  it('installs LZ4 and compresses and decompresses through pipes, with its three commands', async () => {
    expect((await sandbox.run('pkg install lz4')).stdout).toBe('installed lz4 1.9.2 (lz4, unlz4, lz4cat)\n');
    const piped = await sandbox.run('echo hello | lz4 | lz4 -d');
    expect(piped).toMatchObject({ stderr: '', stdout: 'hello\n' });
    const files = await sandbox.run('cd /tmp && seq 1 20000 > n && lz4 -q n n.lz4 && unlz4 -c /tmp/n.lz4 | cmp - n && lz4cat n.lz4 | tail -1 && test $(wc -c < n.lz4) -lt $(wc -c < n) && echo smaller');
    expect(files).toMatchObject({ stderr: '', stdout: '20000\nsmaller\n' });
  });
});
