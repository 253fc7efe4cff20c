// pip install of pure-Python wheels (docs/packages.md) from a PEP 503 simple index served
// from loopback, through the package policy: the wheel lands in the workspace's Python path
// and imports; a bad sha256, a host the policy does not allow and an unsafe path in the
// wheel are refused with nothing written; without a Python index pip refuses as before.

import { createHash } from 'node:crypto';
import { zipSync, strToU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, drainWarmPool } from '../../src/host/node/index.js';
import { serveFiles, type FileServer } from '../helpers/file-server.js';

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

function wheel(name: string, version: string, files: Record<string, string>): Uint8Array {
  const info = `${name}-${version}.dist-info`;
  return zipSync({
    ...Object.fromEntries(Object.entries(files).map(([path, text]) => [path, strToU8(text)])),
    [`${info}/METADATA`]: strToU8(`Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\nRequires-Dist: requests\n`),
    [`${info}/WHEEL`]: strToU8('Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n'),
    [`${info}/RECORD`]: strToU8(''),
  });
}

const good = wheel('hello_airlock', '1.2.0', { 'hello_airlock/__init__.py': "def greet():\n    return 'hello from a wheel'\n" });
const old = wheel('hello_airlock', '1.0.0', { 'hello_airlock/__init__.py': "def greet():\n    return 'old'\n" });
const evil = wheel('evil', '1.0', { '../../../../etc/evil.py': 'x = 1\n' });

describe('pip install', { timeout: 180_000 }, () => {
  let server: FileServer;
  let host = '';
  let sandbox: Sandbox;

  beforeAll(async () => {
    server = await serveFiles((address) => {
      const base = `http://${address}`;
      return {
        '/simple/hello-airlock/': `<html><body><a href="${base}/files/hello_airlock-1.0.0-py3-none-any.whl#sha256=${sha(old)}">hello_airlock-1.0.0-py3-none-any.whl</a>
<a href="../../files/hello_airlock-1.2.0-py3-none-any.whl#sha256=${sha(good)}">hello_airlock-1.2.0-py3-none-any.whl</a></body></html>`,
        '/simple/badhash/': `<a href="/files/badhash-1.0-py3-none-any.whl#sha256=${sha(old)}">badhash-1.0-py3-none-any.whl</a>`,
        '/simple/elsewhere/': `<a href="http://files.invalid/elsewhere-1.0-py3-none-any.whl#sha256=${sha(good)}">elsewhere-1.0-py3-none-any.whl</a>`,
        '/simple/evil/': `<a href="/files/evil-1.0-py3-none-any.whl#sha256=${sha(evil)}">evil-1.0-py3-none-any.whl</a>`,
        '/files/hello_airlock-1.0.0-py3-none-any.whl': old,
        '/files/hello_airlock-1.2.0-py3-none-any.whl': good,
        '/files/badhash-1.0-py3-none-any.whl': good,
        '/files/evil-1.0-py3-none-any.whl': evil,
      };
    });
    host = server.host;
    sandbox = await Sandbox.create({ packages: { enabled: true, pythonIndex: `http://${host}/simple/`, allowedHosts: [host] } });
  }, 180_000);

  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
    await server?.close();
  });

  it('installs the newest pure-Python wheel into the Python path', async () => {
    const result = await sandbox.run('pip install hello-airlock && python3 -c "import hello_airlock; print(hello_airlock.greet())"');
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('Successfully installed hello-airlock-1.2.0 (not installed, its dependencies: requests)\nhello from a wheel\n');
    expect((await sandbox.run('pip3 install hello_airlock==1.0.0 && python3 -c "import hello_airlock; print(hello_airlock.greet())"')).stdout).toContain('\nold\n');
  });

  it('refuses a bad sha256, a host the policy does not allow and an unsafe path, writing nothing', async () => {
    const result = await sandbox.run('pip install badhash elsewhere evil; echo "status $?"; ls ~/.local/lib/python3/site-packages; ls /etc/evil.py');
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe(`pip: badhash-1.0-py3-none-any.whl: sha256 mismatch (index ${sha(old)}, downloaded ${sha(good)}); nothing installed`);
    expect(lines[1]).toBe(`pip: elsewhere-1.0-py3-none-any.whl: host files.invalid is not in the package policy's allowedHosts (${host})`);
    expect(lines[2]).toBe("pip: evil-1.0-py3-none-any.whl: holds an unsafe path '../../../../etc/evil.py'; nothing installed");
    expect(result.stdout.startsWith('status 1\nhello_airlock\n')).toBe(true);
    expect(result.stdout).not.toMatch(/badhash|elsewhere|evil/);
    expect(result.stderr).toContain("ls: cannot access '/etc/evil.py': No such file or directory");
  });

  it('is refused as before where no Python index is configured', async () => {
    const plain = await Sandbox.create({});
    try {
      const result = await plain.run('pip install hello-airlock');
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain('pip is not available: no package source is configured');
    } finally {
      await plain.destroy();
    }
  });
});
