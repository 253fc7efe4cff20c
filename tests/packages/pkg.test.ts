// pkg (docs/packages.md) against a registry served from loopback: install, run, list, info,
// search, remove; and every refusal before anything is written — disabled by default, a
// bad sha256, an oversized package (by the index and by the download), a host the policy
// does not allow, bad names, the installed-packages limit. The packages are the foreign
// WASI test programs (tests/wasi/bin).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, drainWarmPool } from '../../src/host/node/index.js';
import type { PackagePolicy } from '../../src/protocol/limits.js';
import { serveFiles, type FileServer } from '../helpers/file-server.js';

const binDir = fileURLToPath(new URL('../wasi/bin/', import.meta.url));
const echo = readFileSync(`${binDir}echo.wasm`);
const cat = readFileSync(`${binDir}cat.wasm`);
const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const TIMEOUT = 120_000;

describe('pkg', { timeout: TIMEOUT }, () => {
  let server: FileServer;
  let host = '';
  const sandboxes: Sandbox[] = [];

  beforeAll(async () => {
    server = await serveFiles(() => ({
      '/index.json': Buffer.from(JSON.stringify({ packages: index() })),
      '/echo.wasm': echo,
      '/cat.wasm': cat,
      // Says 100 bytes in the index, serves the whole module.
      '/liar.wasm': echo,
    }));
    host = server.host;
  });

  afterAll(async () => {
    for (const sandbox of sandboxes) await sandbox.destroy();
    drainWarmPool();
    await server?.close();
  });

  function index(): object[] {
    const base = `http://${host}`;
    return [
      { name: 'wecho', version: '1.0.0', description: 'echo, built with wasi-libc', url: `${base}/echo.wasm`, sha256: sha(echo), size: echo.length, commands: ['wecho', 'wecho2'] },
      { name: 'wecho', version: '0.9', description: 'an older echo', url: `${base}/echo.wasm`, sha256: sha(echo), size: echo.length, commands: ['wecho'] },
      { name: 'wcat', version: '1.0', description: 'cat in C', url: `${base}/cat.wasm`, sha256: sha(cat), size: cat.length, commands: ['wcat'] },
      { name: 'badhash', version: '1', description: 'wrong sha256', url: `${base}/echo.wasm`, sha256: sha(cat), size: echo.length, commands: ['badhash'] },
      { name: 'huge', version: '1', description: 'over the size limit', url: `${base}/echo.wasm`, sha256: sha(echo), size: 64 * 1024 * 1024, commands: ['huge'] },
      { name: 'liar', version: '1', description: 'bigger than it says', url: `${base}/liar.wasm`, sha256: sha(echo), size: 100, commands: ['liar'] },
      { name: 'elsewhere', version: '1', description: 'on a host the policy does not list', url: 'http://registry.invalid/x.wasm', sha256: sha(echo), size: echo.length, commands: ['elsewhere'] },
      { name: 'shadow', version: '1', description: 'would replace ls', url: `${base}/echo.wasm`, sha256: sha(echo), size: echo.length, commands: ['ls'] },
      { name: '../escape', version: '1', description: 'a bad name', url: `${base}/echo.wasm`, sha256: sha(echo), size: echo.length, commands: ['escape'] },
    ];
  }

  async function sandbox(policy: Partial<PackagePolicy> | undefined, options: { allowedTools?: string[] } = {}): Promise<Sandbox> {
    const created = await Sandbox.create({ ...(policy === undefined ? {} : { packages: { registry: `http://${host}/index.json`, allowedHosts: [host], ...policy } }), ...options });
    sandboxes.push(created);
    return created;
  }

  it('is disabled by default', async () => {
    const box = await sandbox(undefined);
    const result = await box.run('pkg install wecho');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe("pkg: packages are disabled (the sandbox's package policy has enabled: false)\n");
  });

  it('installs the newest version, runs it from PATH, lists, describes, searches and removes it', async () => {
    const box = await sandbox({ enabled: true });
    const installed = await box.run('pkg install wecho && wecho hello from a package && wecho2 second command && pkg list');
    expect(installed.stderr).toBe('');
    expect(installed.stdout).toBe('installed wecho 1.0.0 (wecho, wecho2)\nhello from a package\nsecond command\nwecho 1.0.0 (wecho, wecho2)\n');
    expect((await box.run('pkg info wecho')).stdout).toContain('version: 1.0.0\ndescription: echo, built with wasi-libc\ncommands: wecho wecho2\n');
    expect((await box.run('pkg search cat')).stdout).toBe('wcat 1.0 - cat in C\n');
    // An exact version, replacing the installed one.
    expect((await box.run('pkg install wecho@0.9 && pkg list && ls /usr/local/bin')).stdout).toBe('installed wecho 0.9 (wecho)\nwecho 0.9 (wecho)\nwecho\n');
    const removed = await box.run('pkg remove wecho; pkg list; wecho still here?');
    expect(removed.stdout).toBe('removed wecho\n');
    expect(removed.exitCode).toBe(127);
  });

  it('refuses a bad sha256, an oversized package and a host the policy does not allow, writing nothing', async () => {
    const box = await sandbox({ enabled: true, maxPackageBytes: 1024 * 1024 });
    const result = await box.run('pkg install badhash huge liar elsewhere; echo "status $?"; ls /usr/local/bin; pkg list');
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe(`pkg: badhash: sha256 mismatch (registry ${sha(cat)}, downloaded ${sha(echo)}); nothing installed`);
    expect(lines[1]).toBe('pkg: huge: 67108864 bytes is over the package policy\'s maxPackageBytes (1048576)');
    expect(lines[2]).toBe(`pkg: liar: http://${host}/liar.wasm: larger than 100 bytes`);
    expect(lines[3]).toBe(`pkg: elsewhere: host registry.invalid is not in the package policy's allowedHosts (${host})`);
    expect(result.stdout).toBe('status 1\n');
  });

  it('refuses bad names before any request, and a command that is a sandbox tool', async () => {
    const box = await sandbox({ enabled: true });
    server.requests.length = 0;
    for (const [name, problem] of [['..', "'..' is not a name"], ['.', "'.' is not a name"], ['a/b', "'a/b' contains '/'"], ['', 'the name is empty']]) {
      const result = await box.run(['pkg', 'install', name as string]);
      expect(result.stderr).toBe(`pkg: invalid package name: ${problem}\n`);
      expect(result.exitCode).toBe(1);
    }
    expect(server.requests).toEqual([]);
    expect((await box.run('pkg install ../escape')).stderr).toBe("pkg: invalid package name: '../escape' contains '/'\n");
    expect((await box.run('pkg install shadow')).stderr).toBe("pkg: shadow: its command ls is one of the sandbox's own commands\n");
  });

  it('tells the audit trail what it installed, removed and refused (sandbox-reported package.* events)', async () => {
    const events: Array<Record<string, unknown>> = [];
    const box = await Sandbox.create({
      packages: { registry: `http://${host}/index.json`, allowedHosts: [host], enabled: true },
      onAuditEvent: (event) => {
        if (event.type.startsWith('package.')) events.push(event as unknown as Record<string, unknown>);
      },
    });
    sandboxes.push(box);
    await box.run('pkg install wecho badhash; pkg remove wecho; pkg install ..');
    expect(events.map((e) => [e.type, e.source, e.name])).toEqual([
      ['package.installed', 'sandbox-reported', 'wecho'],
      ['package.refused', 'sandbox-reported', 'badhash'],
      ['package.removed', 'sandbox-reported', 'wecho'],
      ['package.refused', 'sandbox-reported', '..'],
    ]);
    expect(events[0]).toMatchObject({ version: '1.0.0', host, bytes: echo.length, sha256: sha(echo) });
    expect(events[1]?.reason).toContain('sha256 mismatch');
    expect(events[3]?.reason).toBe("invalid package name: '..' is not a name");
  });

  it('keeps to maxInstalledPackages', async () => {
    const box = await sandbox({ enabled: true, maxInstalledPackages: 1 });
    const result = await box.run('pkg install wcat && pkg install wecho');
    expect(result.stdout).toBe('installed wcat 1.0 (wcat)\n');
    expect(result.stderr).toBe("pkg: wecho: 1 packages are installed, the package policy's maxInstalledPackages (1)\n");
  });

  it('is the only writer of /usr/local/bin, and the tool allowlist applies to packages', async () => {
    const box = await sandbox({ enabled: true }, { allowedTools: ['bash', 'pkg', 'echo', 'cp'] });
    const result = await box.run('pkg install wcat >/dev/null; echo x > /usr/local/bin/wcat; cp /usr/local/bin/wcat /usr/local/bin/other; echo hi | wcat');
    expect(result.stderr).toContain('/usr/local/bin/wcat: Read-only file system');
    expect(result.stderr).toContain('Read-only file system');
    expect(result.exitCode).toBe(126);
  });

  it('persists with the workspace', async () => {
    const box = await sandbox({ enabled: true });
    await box.run('pkg install wcat');
    const state = await box.exportState();
    const restored = await Sandbox.create({ state, packages: { enabled: true } });
    sandboxes.push(restored);
    const result = await restored.run('echo persisted | wcat; pkg list');
    expect(result.stdout).toBe('persisted\nwcat 1.0 (wcat)\n');
  });
});
