// The egress proxy against loopback upstreams (HTTP, and HTTPS with a test CA): plain
// forwarding, TLS terminated with the proxy's ephemeral CA (secrets injected, echoes
// scrubbed), tunnels checked by SNI, Host/SNI that differ from the CONNECT target, the floor
// (a tripwire that must see no connection), and the caps. Names resolve through a DNS stub
// to 127.0.0.1; nothing leaves loopback.

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyAgent, request } from 'undici';
import { startDnsStub, type DnsStub } from '../../tests/network/dns-stub.js';
import { startTripwire, type Tripwire } from '../../tests/network/tripwire.js';
import { createEphemeralCa } from './ca.js';
import { startEgressProxy, type EgressProxy, type ProxyDecision } from './proxy.js';

const SECRET = 's3cr3t-value-1234567';

function echo(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() })));
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Opens a CONNECT tunnel by hand; resolves with the socket and the proxy's status line. */
function openTunnel(proxyPort: number, target: string): Promise<{ socket: Socket; status: string }> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(proxyPort, '127.0.0.1', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      resolve({ socket, status: head.split('\r\n')[0] ?? '' });
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

describe('the egress proxy', () => {
  let dns: DnsStub;
  let wire: Tripwire;
  let plain: Server;
  let plainPort = 0;
  let https: Server;
  let httpsPort = 0;
  let tunnelled: Server;
  let tunnelPort = 0;
  let tunnelConnections = 0;
  let slow: Server;
  let slowPort = 0;
  let testCa: string;
  let proxy: EgressProxy;
  const decisions: ProxyDecision[] = [];

  beforeAll(async () => {
    dns = await startDnsStub((name, type) => (type === 'A' && name.endsWith('.test') ? ['127.0.0.1'] : type === 'A' ? undefined : []));
    wire = await startTripwire('127.0.0.1');
    const upstreamCa = await createEphemeralCa('test upstream CA');
    testCa = upstreamCa.certificate;
    plain = createHttpServer(echo);
    plainPort = await listen(plain);
    https = createHttpsServer({ ...(await upstreamCa.leafFor('upstream.test')) }, echo);
    httpsPort = await listen(https);
    tunnelled = createHttpsServer({ ...(await upstreamCa.leafFor('tunnel.test')) }, echo);
    tunnelled.on('connection', () => (tunnelConnections += 1));
    tunnelPort = await listen(tunnelled);
    // Answers its headers and then one byte every 200 ms, for ever; or nothing at all on /silent.
    slow = createHttpServer((req, res) => {
      if (req.url === '/silent') return;
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 200);
      res.on('close', () => clearInterval(timer));
    });
    slowPort = await listen(slow);
    proxy = await startEgressProxy({
      policy: {
        allowedHosts: [`plain.test:${plainPort}`, `upstream.test:${httpsPort}`, `tunnel.test:${tunnelPort}`, `slow.test:${slowPort}`, `big.test:${plainPort}`, '*:*'],
        tunnel: ['tunnel.test'],
        secrets: [{ name: 'API_TOKEN', value: SECRET, hosts: ['upstream.test:*', 'tunnel.test:*'], header: 'Authorization', template: 'Bearer ${API_TOKEN}' }],
      },
      dnsServers: [dns.server],
      upstreamCa: [testCa],
      limits: { idleMs: 600, totalMs: 1500, requestBytes: 4000, responseBytes: 6000, connections: 200 },
      onDecision: (d) => decisions.push(d),
    });
  });

  afterAll(async () => {
    await proxy?.close();
    for (const server of [plain, https, tunnelled, slow]) server?.closeAllConnections?.();
    await Promise.all([plain, https, tunnelled, slow].map((s) => new Promise((r) => s?.close(r))));
    await wire?.close();
    await dns?.close();
  });

  const through = (options: { trustProxy?: boolean } = {}) => new ProxyAgent({ uri: proxy.url as string, proxyTunnel: false, requestTls: { ca: options.trustProxy === false ? testCa : proxy.caCertificate } });

  it('forwards plain HTTP it allows, without secrets for unbound hosts', async () => {
    const response = await request(`http://plain.test:${plainPort}/hello?x=1`, { dispatcher: through(), headers: { 'X-Probe': 'yes' } });
    const seen = (await response.body.json()) as { url: string; headers: Record<string, string> };
    expect(response.statusCode).toBe(200);
    expect(seen.url).toBe('/hello?x=1');
    expect(seen.headers['x-probe']).toBe('yes');
    expect(seen.headers.authorization).toBeUndefined();
    expect(decisions.at(-1)).toMatchObject({ enforcer: 'proxy', method: 'GET', host: 'plain.test', allowed: true, status: 200, rule: `allowedHosts:plain.test:${plainPort}` });
  });

  it('terminates TLS with its CA: injects the bound secret, scrubs its echo, and a client that does not trust the CA fails', async () => {
    const response = await request(`https://upstream.test:${httpsPort}/api`, { dispatcher: through(), headers: { Authorization: 'Bearer airlock-secret:API_TOKEN' } });
    const text = await response.body.text();
    expect(response.statusCode).toBe(200);
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text).headers.authorization).toBe('Bearer airlock-secret:API_TOKEN');
    const { socket } = await openTunnel(proxy.port as number, `upstream.test:${httpsPort}`);
    const untrusting = tlsConnect({ socket, servername: 'upstream.test', ca: testCa });
    await expect(new Promise((resolve, reject) => untrusting.on('secureConnect', resolve).on('error', reject))).rejects.toThrow(/certificate/);
  });

  it('tunnels a host marked tunnel when the SNI names it, and cuts one whose SNI differs', async () => {
    const response = await request(`https://tunnel.test:${tunnelPort}/t`, { dispatcher: through({ trustProxy: false }) });
    const seen = (await response.body.json()) as { headers: Record<string, string> };
    expect(response.statusCode).toBe(200);
    expect(seen.headers.authorization).toBeUndefined();
    const before = tunnelConnections;
    const { socket, status } = await openTunnel(proxy.port as number, `tunnel.test:${tunnelPort}`);
    expect(status).toBe('HTTP/1.1 200 Connection Established');
    const tls = tlsConnect({ socket, servername: 'upstream.test', ca: testCa });
    await expect(new Promise((resolve, reject) => tls.on('secureConnect', resolve).on('error', reject).on('close', () => reject(new Error('closed'))))).rejects.toThrow();
    expect(tunnelConnections).toBe(before);
    expect(decisions.at(-1)).toMatchObject({ allowed: false, reason: `SNI upstream.test differs from the CONNECT target tunnel.test` });
  });

  it('refuses a Host or an SNI that differs from the CONNECT target', async () => {
    const { socket } = await openTunnel(proxy.port as number, `upstream.test:${httpsPort}`);
    const tls = tlsConnect({ socket, servername: 'upstream.test', ca: proxy.caCertificate });
    await new Promise((resolve) => tls.on('secureConnect', resolve));
    tls.write(`GET / HTTP/1.1\r\nHost: plain.test:${plainPort}\r\nConnection: close\r\n\r\n`);
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      tls.on('data', (c: Buffer) => (text += c.toString()));
      tls.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1.1 421 /);
    expect(answer).toContain(`Host plain.test:${plainPort} differs from the CONNECT target upstream.test:${httpsPort}`);
    const second = await openTunnel(proxy.port as number, `upstream.test:${httpsPort}`);
    const wrongSni = tlsConnect({ socket: second.socket, servername: 'other.test', ca: proxy.caCertificate });
    await expect(new Promise((resolve, reject) => wrongSni.on('secureConnect', resolve).on('error', reject))).rejects.toThrow();
  });

  it('keeps the floor: loopback in any spelling, plain or CONNECT, never reaches the tripwire', async () => {
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', 'localhost', '2130706433']) {
      const response = await request(`http://${host}:${wire.port}/`, { dispatcher: through() });
      expect(response.statusCode, host).toBe(403);
      expect(await response.body.text(), host).toMatch(/refused: .*(loopback)/);
      const tunnel = await openTunnel(proxy.port as number, `${host === '2130706433' ? '127.0.0.1' : host}:${wire.port}`);
      expect(tunnel.status, host).toBe('HTTP/1.1 403 Forbidden');
      tunnel.socket.destroy();
    }
    const unlisted = await openTunnel(proxy.port as number, 'bad target');
    expect(unlisted.status).toBe('HTTP/1.1 400 Bad Request');
    expect(wire.connections).toBe(0);
  });

  it('caps request and response bytes, and ends slow upstreams at the idle and total limits', async () => {
    const tooBig = await request(`http://plain.test:${plainPort}/`, { dispatcher: through(), method: 'POST', body: 'x'.repeat(5000) });
    expect(tooBig.statusCode).toBe(413);
    expect(await tooBig.body.text()).toContain("the request body is larger than the proxy's requestBytes (4000 bytes)");
    // The echo is over responseBytes: the answer is cut (before or after its head went out).
    const big = async (): Promise<string> => (await request(`http://big.test:${plainPort}/`, { dispatcher: through(), method: 'POST', body: 'y'.repeat(900), headers: { 'X-Pad': 'z'.repeat(6000) } })).body.text();
    await expect(big()).rejects.toThrow();
    expect(decisions.at(-1)).toMatchObject({ host: 'big.test', reason: "the response is larger than the proxy's 6000 bytes" });
    const silent = await request(`http://slow.test:${slowPort}/silent`, { dispatcher: through() });
    expect(silent.statusCode).toBe(504);
    expect(await silent.body.text()).toContain("within the proxy's time limits (idle 600 ms, total 1500 ms)");
    // One byte every 200 ms is never idle for 600 ms, but the total limit (1500 ms) ends it.
    const dripping = async (): Promise<string> => (await request(`http://slow.test:${slowPort}/drip`, { dispatcher: through() })).body.text();
    await expect(dripping()).rejects.toThrow();
    expect(decisions.at(-1)).toMatchObject({ host: 'slow.test', allowed: true });
  });

  it('caps concurrent connections: past the cap a new one is closed at once', async () => {
    const small = await startEgressProxy({ policy: {}, limits: { connections: 2 } });
    try {
      const open = (): Promise<{ socket: Socket; closed: Promise<void> }> =>
        new Promise((resolve) => {
          const socket = netConnect(small.port as number, '127.0.0.1', () => resolve({ socket, closed: new Promise((done) => socket.on('close', () => done())) }));
          socket.on('error', () => undefined);
        });
      const [first, second, third] = [await open(), await open(), await open()];
      await third.closed;
      expect(first.socket.destroyed || second.socket.destroyed).toBe(false);
      first.socket.destroy();
      second.socket.destroy();
    } finally {
      await small.close();
    }
  });

  it('answers a request that is not a proxy request with 400', async () => {
    const response = await request(`${proxy.url as string}/just-a-path`);
    expect(response.statusCode).toBe(400);
    expect(await response.body.text()).toContain('not a proxy request');
  });
});
