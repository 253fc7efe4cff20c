import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, drainWarmPool } from '../node/index.js';
import { decide } from './policy.js';

describe('network policy', () => {
  const url = (text: string) => new URL(text);
  const resolveTo = (...addresses: string[]) => async () => addresses;

  it('denies everything by default', async () => {
    expect(await decide(undefined, 'GET', url('https://example.com/'))).toEqual({ allowed: false, rule: 'default', reason: 'network access is off: no host is allowed' });
  });

  it('matches exact hosts, *. wildcards (subdomains only) and ports', async () => {
    const policy = { allowedHosts: ['api.example.com', '*.cdn.test', 'svc.example:8080'] };
    expect((await decide(policy, 'GET', url('https://api.example.com/x'))).allowed).toBe(true);
    expect((await decide(policy, 'GET', url('https://example.com/'))).allowed).toBe(false);
    expect((await decide(policy, 'GET', url('https://a.b.cdn.test/'))).allowed).toBe(true);
    expect((await decide(policy, 'GET', url('https://cdn.test/'))).allowed).toBe(false);
    expect((await decide(policy, 'GET', url('http://svc.example:8080/'))).allowed).toBe(true);
    expect((await decide(policy, 'GET', url('http://svc.example:9090/'))).allowed).toBe(false);
    expect((await decide(policy, 'GET', url('https://API.Example.com./x'))).allowed).toBe(true);
  });

  it('lets blockedHosts win and names the pattern', async () => {
    const decision = await decide({ allowedHosts: ['*'], blockedHosts: ['*.evil.test'] }, 'GET', url('https://x.evil.test/'));
    expect(decision).toEqual({ allowed: false, rule: 'blockedHosts:*.evil.test', reason: 'x.evil.test is blocked by network.blockedHosts (*.evil.test)' });
  });

  it('keeps loopback and private hosts out unless an exact host:port entry names them', async () => {
    for (const host of ['127.0.0.1', 'localhost', 'app.localhost', '10.1.2.3', '192.168.0.1', '[::1]', '0.0.0.0', '[fd00::1]']) {
      expect((await decide({ allowedHosts: ['*'] }, 'GET', url(`http://${host}/`))).allowed, host).toBe(false);
    }
    expect((await decide({ allowedHosts: ['*'] }, 'GET', url('http://looks-public.test/'), resolveTo('93.184.216.34', '10.0.0.5'))).allowed).toBe(false);
    expect((await decide({ allowedHosts: ['127.0.0.1'] }, 'GET', url('http://127.0.0.1:1234/'))).allowed).toBe(false);
    expect((await decide({ allowedHosts: ['named.test'] }, 'GET', url('http://named.test/'), resolveTo('127.0.0.1'))).allowed).toBe(false);
    expect(await decide({ allowedHosts: ['127.0.0.1:1234'] }, 'GET', url('http://127.0.0.1:1234/'))).toEqual({ allowed: true, addresses: ['127.0.0.1'], rule: 'allowedHosts:127.0.0.1:1234', exception: '127.0.0.1:1234' });
    expect(await decide({ allowedHosts: ['dev.test:3000'] }, 'GET', url('http://dev.test:3000/'), resolveTo('127.0.0.1', '::1'))).toEqual({ allowed: true, addresses: ['127.0.0.1', '::1'], rule: 'allowedHosts:dev.test:3000', exception: 'dev.test:3000' });
    expect(await decide({ allowedHosts: ['*'] }, 'GET', url('http://public.test/'), resolveTo('93.184.216.34'))).toEqual({ allowed: true, addresses: ['93.184.216.34'], rule: 'allowedHosts:*' });
  });

  it('never opens metadata, link-local or unspecified addresses, even for an exact entry', async () => {
    for (const target of ['169.254.169.254:80', '[fd00:ec2::254]:80', '100.100.100.200:80', '0.0.0.0:80', 'metadata.google.internal:80']) {
      const decision = await decide({ allowedHosts: [target] }, 'GET', url(`http://${target}/`));
      expect(decision.allowed, target).toBe(false);
      expect(decision.allowed === false && decision.reason, target).toMatch(/never reachable/);
    }
  });

  it('refuses other schemes and asks onRequest last', async () => {
    expect((await decide({ allowedHosts: ['*'] }, 'GET', url('file:///etc/passwd'))).allowed).toBe(false);
    const seen: string[] = [];
    const policy = { allowedHosts: ['*'], onRequest: (r: { url: string }) => (seen.push(r.url), !r.url.includes('deny')) };
    expect((await decide(policy, 'GET', url('https://ok.test/'))).allowed).toBe(true);
    expect((await decide(policy, 'GET', url('https://ok.test/deny'))).allowed).toBe(false);
    expect((await decide(policy, 'GET', url('http://127.0.0.1/'))).allowed).toBe(false);
    expect(seen).toEqual(['https://ok.test/', 'https://ok.test/deny']);
  });

  it('never rejects: a callback that throws, or a path no rule can read, refuses with the reason', async () => {
    const throwing = {
      allowedHosts: ['*'],
      onRequest: (): boolean => {
        throw new Error('hook down');
      },
    };
    expect(await decide(throwing, 'GET', url('https://ok.test/'), resolveTo('93.184.216.34'))).toEqual({ allowed: false, rule: 'error', reason: 'the request to ok.test could not be decided: hook down' });
    const profiled = await decide({ allowedHosts: ['github'], githubProfile: 'issues-write' }, 'POST', url('https://api.github.com/repos/o/r/%E0%A4%A'), resolveTo('93.184.216.34'));
    expect(profiled).toMatchObject({ allowed: false, rule: 'githubProfile:issues-write', reason: expect.stringContaining('is not valid percent-encoding') });
  });
});

describe('network from inside the sandbox', () => {
  const wasmDir = fileURLToPath(new URL('../../../tests/wasm', import.meta.url));
  let server: Server;
  let base: string;
  let port = 0;
  let other: Server;
  let otherPort = 0;

  beforeAll(async () => {
    // Another host (port) that tells which of the sandbox's credentials reached it.
    other = createServer((req, res) => res.end(`auth=${req.headers.authorization ?? '-'} cookie=${req.headers.cookie ?? '-'} keep=${req.headers['x-keep'] ?? '-'}`));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherPort = (other.address() as { port: number }).port;
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/hello') res.end(`hello ${req.method} ${req.headers['x-probe']}`);
        else if (req.url === '/echo') res.end(Buffer.concat(chunks));
        else if (req.url === '/redirect') res.writeHead(302, { Location: '/hello' }).end();
        else if (req.url === '/away') res.writeHead(302, { Location: 'http://outside.test/' }).end();
        else if (req.url === '/other') res.writeHead(302, { Location: `http://127.0.0.1:${otherPort}/landed` }).end();
        else if (req.url === '/big') res.end(Buffer.alloc(200_000, 'x'));
        else res.writeHead(404).end('no');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(() => {
    server.close();
    other.close();
    drainWarmPool();
  });

  it('reaches an allowed host, with method, headers, body and redirects', async () => {
    const sandbox = await Sandbox.create({ wasmDir, network: { allowedHosts: [`127.0.0.1:${port}`] } });
    expect((await sandbox.run(['probe', 'http', 'GET', `${base}/hello`])).stdout).toBe(`200 ${base}/hello\nhello GET 1`);
    expect((await sandbox.run(['probe', 'http', 'POST', `${base}/echo`, 'payload'])).stdout).toBe(`200 ${base}/echo\npayload`);
    expect((await sandbox.run(['probe', 'http', 'GET', `${base}/redirect`])).stdout).toBe(`200 ${base}/hello\nhello GET 1`);
    await sandbox.destroy();
  });

  it('refuses what the policy does not allow, naming the policy, like curl does for an unreachable host', async () => {
    const closed = await Sandbox.create({ wasmDir });
    const refused = await closed.run(['probe', 'http', 'GET', `${base}/hello`]);
    expect(refused.exitCode).toBe(7);
    expect(refused.stdout).toContain("refused by the sandbox's network policy: network access is off");
    await closed.destroy();
    const open = await Sandbox.create({ wasmDir, network: { allowedHosts: [`127.0.0.1:${port}`] } });
    const away = await open.run(['probe', 'http', 'GET', `${base}/away`]);
    expect(away.exitCode).toBe(7);
    expect(away.stdout).toContain('outside.test is not in network.allowedHosts');
    await open.destroy();
  });

  it("drops the sandbox's own Authorization and Cookie on a redirect to another host, and keeps the rest", async () => {
    const sandbox = await Sandbox.create({ network: { allowedHosts: [`127.0.0.1:${port}`, `127.0.0.1:${otherPort}`] } });
    const headers = `-H 'Authorization: Bearer mine' -H 'Cookie: session=mine' -H 'X-Keep: kept'`;
    expect((await sandbox.run(`curl -s ${headers} http://127.0.0.1:${otherPort}/`)).stdout).toBe('auth=Bearer mine cookie=session=mine keep=kept');
    expect((await sandbox.run(`curl -sL ${headers} ${base}/other`)).stdout).toBe('auth=- cookie=- keep=kept');
    await sandbox.destroy();
  });

  it('refuses huge request headers before sending them, naming the limit', async () => {
    const sandbox = await Sandbox.create({ network: { allowedHosts: [`127.0.0.1:${otherPort}`] } });
    const result = await sandbox.run(`curl -sS -H "X-Huge: $(printf '%040000d' 0)" http://127.0.0.1:${otherPort}/; echo " $?"`);
    expect(result.stdout + result.stderr).toMatch(/the request headers are 40\d{3} bytes, more than the limit of 32768 bytes/);
    await sandbox.destroy();
  });

  it('caps response bodies at networkResponseBytes', async () => {
    const sandbox = await Sandbox.create({ wasmDir, network: { allowedHosts: [`127.0.0.1:${port}`] }, limits: { networkResponseBytes: 100_000 } });
    const result = await sandbox.run(['probe', 'http', 'GET', `${base}/big`]);
    expect(result.exitCode).toBe(63);
    expect(result.stdout).toContain('larger than networkResponseBytes (100000 bytes)');
    await sandbox.destroy();
  });
});
