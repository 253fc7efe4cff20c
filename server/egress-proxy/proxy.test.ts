// The egress proxy against loopback upstreams (HTTP, and HTTPS with a test CA): plain
// forwarding, TLS terminated with the proxy's ephemeral CA (secrets injected, echoes
// scrubbed), tunnels checked by SNI, Host/SNI that differ from the CONNECT target, the floor
// (a tripwire that must see no connection), and the caps. Names resolve through a DNS stub
// to 127.0.0.1; nothing leaves loopback.

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
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
  // The upstreams, and the loopback ports they listen on (each in the policy's allowed hosts).
  let plain: Server;
  let https: Server;
  let tunnelled: Server;
  let slow: Server;
  // Answers with exact bytes, by path: framings a lenient reader could be fooled by.
  let raw: NetServer;
  const port = { plain: 0, https: 0, tunnel: 0, slow: 0, raw: 0 };
  let tunnelConnections = 0;
  let testCa: string;
  let proxy: EgressProxy;
  const decisions: ProxyDecision[] = [];
  const waiting: Array<{ match: (d: ProxyDecision) => boolean; resolve: (d: ProxyDecision) => void }> = [];
  /** The next decision that matches (some are reported when their tunnel ends). */
  const nextDecision = (match: (d: ProxyDecision) => boolean): Promise<ProxyDecision> => new Promise((resolve) => waiting.push({ match, resolve }));
  const recordDecision = (d: ProxyDecision): void => {
    decisions.push(d);
    for (const w of waiting.splice(0)) if (w.match(d)) w.resolve(d);
    else waiting.push(w);
  };

  beforeAll(async () => {
    dns = await startDnsStub((name, type) => (type === 'A' && name.endsWith('.test') ? ['127.0.0.1'] : type === 'A' ? undefined : []));
    wire = await startTripwire('127.0.0.1');
    const upstreamCa = await createEphemeralCa('test upstream CA');
    testCa = upstreamCa.certificate;
    plain = createHttpServer(echo);
    port.plain = await listen(plain);
    https = createHttpsServer({ ...(await upstreamCa.leafFor('upstream.test')) }, echo);
    port.https = await listen(https);
    tunnelled = createHttpsServer({ ...(await upstreamCa.leafFor('tunnel.test')) }, echo);
    tunnelled.on('connection', () => (tunnelConnections += 1));
    port.tunnel = await listen(tunnelled);
    // Answers its headers and then one byte every 200 ms, for ever; or nothing at all on /silent.
    slow = createHttpServer((req, res) => {
      if (req.url === '/silent') return;
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 200);
      res.on('close', () => clearInterval(timer));
    });
    port.slow = await listen(slow);
    raw = createNetServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', (chunk: Buffer) => {
        const path = chunk.toString('latin1').split(' ')[1];
        if (path === '/repeated-length') socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2, 2\r\n\r\nok');
        else if (path === '/smuggle') socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n');
        else socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    port.raw = (raw.address() as AddressInfo).port;
    proxy = await startEgressProxy({
      policy: {
        allowedHosts: [`127.0.0.1:${port.plain}`, `plain.test:${port.plain}`, `upstream.test:${port.https}`, `tunnel.test:${port.tunnel}`, `slow.test:${port.slow}`, `big.test:${port.plain}`, `raw.test:${port.raw}`, '*:*'],
        tunnel: ['tunnel.test'],
        secrets: [{ name: 'API_TOKEN', value: SECRET, hosts: ['upstream.test:*', 'tunnel.test:*'], header: 'Authorization', template: 'Bearer ${API_TOKEN}' }],
      },
      dnsServers: [dns.server],
      upstreamCa: [testCa],
      limits: { idleMs: 600, totalMs: 1500, requestBytes: 4000, responseBytes: 6000, connections: 200 },
      onDecision: recordDecision,
    });
  });

  afterAll(async () => {
    await proxy?.close();
    for (const server of [plain, https, tunnelled, slow]) server?.closeAllConnections?.();
    await Promise.all([plain, https, tunnelled, slow, raw].map((s) => new Promise((r) => s?.close(r))));
    await wire?.close();
    await dns?.close();
  });

  const through = (options: { trustProxy?: boolean } = {}) => new ProxyAgent({ uri: proxy.url as string, proxyTunnel: false, requestTls: { ca: options.trustProxy === false ? testCa : proxy.caCertificate } });

  it('forwards plain HTTP it allows, without secrets for unbound hosts', async () => {
    const response = await request(`http://plain.test:${port.plain}/hello?x=1`, { dispatcher: through(), headers: { 'X-Probe': 'yes' } });
    const seen = (await response.body.json()) as { url: string; headers: Record<string, string> };
    expect(response.statusCode).toBe(200);
    expect(seen.url).toBe('/hello?x=1');
    expect(seen.headers['x-probe']).toBe('yes');
    expect(seen.headers.authorization).toBeUndefined();
    expect(decisions.at(-1)).toMatchObject({ enforcer: 'proxy', method: 'GET', host: 'plain.test', allowed: true, status: 200, rule: `allowedHosts:plain.test:${port.plain}` });
  });

  it('terminates TLS with its CA: injects the bound secret, scrubs its echo, and a client that does not trust the CA fails', async () => {
    const response = await request(`https://upstream.test:${port.https}/api`, { dispatcher: through(), headers: { Authorization: 'Bearer airlock-secret:API_TOKEN' } });
    const text = await response.body.text();
    expect(response.statusCode).toBe(200);
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text).headers.authorization).toBe('Bearer airlock-secret:API_TOKEN');
    const { socket } = await openTunnel(proxy.port as number, `upstream.test:${port.https}`);
    const untrusting = tlsConnect({ socket, servername: 'upstream.test', ca: testCa });
    await expect(new Promise((resolve, reject) => untrusting.on('secureConnect', resolve).on('error', reject))).rejects.toThrow(/certificate/);
  });

  it('prefers AES-128-GCM for a terminated tunnel, and keeps a client to the suite it asks for', async () => {
    const suiteFor = async (options: { ciphers?: string }): Promise<string> => {
      const { socket } = await openTunnel(proxy.port as number, `upstream.test:${port.https}`);
      const tls = tlsConnect({ socket, servername: 'upstream.test', ca: proxy.caCertificate, ...options });
      await new Promise((resolve, reject) => tls.on('secureConnect', resolve).on('error', reject));
      const suite = tls.getCipher().standardName;
      tls.destroy();
      return suite;
    };
    expect(await suiteFor({})).toBe('TLS_AES_128_GCM_SHA256');
    expect(await suiteFor({ ciphers: 'TLS_AES_256_GCM_SHA384' })).toBe('TLS_AES_256_GCM_SHA384');
  });

  it('tunnels a host marked tunnel when the SNI names it, and cuts one whose SNI differs', async () => {
    const response = await request(`https://tunnel.test:${port.tunnel}/t`, { dispatcher: through({ trustProxy: false }) });
    const seen = (await response.body.json()) as { headers: Record<string, string> };
    expect(response.statusCode).toBe(200);
    expect(seen.headers.authorization).toBeUndefined();
    const before = tunnelConnections;
    const { socket, status } = await openTunnel(proxy.port as number, `tunnel.test:${port.tunnel}`);
    expect(status).toBe('HTTP/1.1 200 Connection Established');
    const tls = tlsConnect({ socket, servername: 'upstream.test', ca: testCa });
    await expect(new Promise((resolve, reject) => tls.on('secureConnect', resolve).on('error', reject).on('close', () => reject(new Error('closed'))))).rejects.toThrow();
    expect(tunnelConnections).toBe(before);
    expect(decisions.at(-1)).toMatchObject({ allowed: false, reason: `SNI upstream.test differs from the CONNECT target tunnel.test` });
  });

  it('refuses a Host or an SNI that differs from the CONNECT target', async () => {
    const { socket } = await openTunnel(proxy.port as number, `upstream.test:${port.https}`);
    const tls = tlsConnect({ socket, servername: 'upstream.test', ca: proxy.caCertificate });
    await new Promise((resolve) => tls.on('secureConnect', resolve));
    tls.write(`GET / HTTP/1.1\r\nHost: plain.test:${port.plain}\r\nConnection: close\r\n\r\n`);
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      tls.on('data', (c: Buffer) => (text += c.toString()));
      tls.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1.1 421 /);
    expect(answer).toContain(`Host plain.test:${port.plain} differs from the CONNECT target upstream.test:${port.https}`);
    const second = await openTunnel(proxy.port as number, `upstream.test:${port.https}`);
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
    const tooBig = await request(`http://plain.test:${port.plain}/`, { dispatcher: through(), method: 'POST', body: 'x'.repeat(5000) });
    expect(tooBig.statusCode).toBe(413);
    expect(await tooBig.body.text()).toContain("the request body is larger than the proxy's requestBytes (4000 bytes)");
    // The echo is over responseBytes: the answer is cut (before or after its head went out).
    const big = async (): Promise<string> => (await request(`http://big.test:${port.plain}/`, { dispatcher: through(), method: 'POST', body: 'y'.repeat(900), headers: { 'X-Pad': 'z'.repeat(6000) } })).body.text();
    await expect(big()).rejects.toThrow();
    expect(decisions.at(-1)).toMatchObject({ host: 'big.test', reason: "the response is larger than the proxy's 6000 bytes" });
    const silent = await request(`http://slow.test:${port.slow}/silent`, { dispatcher: through() });
    expect(silent.statusCode).toBe(504);
    expect(await silent.body.text()).toContain("within the proxy's time limits (idle 600 ms, total 1500 ms)");
    // One byte every 200 ms is never idle for 600 ms, but the total limit (1500 ms) ends it.
    const dripping = async (): Promise<string> => (await request(`http://slow.test:${port.slow}/drip`, { dispatcher: through() })).body.text();
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

  it('reports the exact host:port entry that opened a loopback service, with the status, bytes and time', async () => {
    const response = await request(`http://127.0.0.1:${port.plain}/opened`, { dispatcher: through() });
    const text = await response.body.text();
    expect(response.statusCode).toBe(200);
    expect(decisions.at(-1)).toMatchObject({ allowed: true, host: '127.0.0.1', rule: `allowedHosts:127.0.0.1:${port.plain}`, exception: `127.0.0.1:${port.plain}`, status: 200, bytes: Buffer.byteLength(text) });
    expect(decisions.at(-1)?.durationMs).toBeGreaterThanOrEqual(0);
    // A tunnel is reported when it ends, with the bytes the far side sent through it.
    const ended = nextDecision((d) => d.method === 'CONNECT' && d.host === 'tunnel.test' && d.allowed);
    const agent = through({ trustProxy: false });
    const tunnelled = await request(`https://tunnel.test:${port.tunnel}/counted`, { dispatcher: agent });
    await tunnelled.body.text();
    await agent.close();
    const tunnel = await ended;
    expect(tunnel).toMatchObject({ rule: 'allowedHosts:tunnel.test:' + port.tunnel });
    expect(tunnel.bytes).toBeGreaterThan(0);
    expect(tunnel.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('refuses a request head over headerBytes with a reason naming the limit, plain and inside a terminated tunnel', async () => {
    const huge = 'h'.repeat(40 * 1024);
    const plainHead = await new Promise<string>((resolve, reject) => {
      const socket = netConnect(proxy.port as number, '127.0.0.1', () => socket.write(`GET http://plain.test:${port.plain}/ HTTP/1.1\r\nHost: plain.test:${port.plain}\r\nX-Huge: ${huge}\r\n\r\n`));
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(plainHead).toMatch(/^HTTP\/1.1 431 /);
    expect(plainHead).toContain("the request head is larger than the proxy's headerBytes (32768 bytes)");
    const { socket } = await openTunnel(proxy.port as number, `upstream.test:${port.https}`);
    const tls = tlsConnect({ socket, servername: 'upstream.test', ca: proxy.caCertificate });
    await new Promise((resolve) => tls.on('secureConnect', resolve));
    tls.write(`GET / HTTP/1.1\r\nHost: upstream.test:${port.https}\r\nX-Huge: ${huge}\r\n\r\n`);
    const inner = await new Promise<string>((resolve) => {
      let text = '';
      tls.on('data', (c: Buffer) => (text += c.toString()));
      tls.on('close', () => resolve(text));
      tls.on('error', () => resolve(text));
    });
    expect(inner).toMatch(/^HTTP\/1.1 431 /);
    expect(inner).toContain("the request head is larger than the proxy's headerBytes (32768 bytes)");
  });

  it('answers a CONNECT to a port past 65535 with 400, and an error in a request\'s handling with 502, and goes on', async () => {
    const { socket, status } = await openTunnel(proxy.port as number, 'plain.test:99999');
    expect(status).toBe('HTTP/1.1 400 Bad Request');
    socket.destroy();
    // A decision hook that throws (it runs in stream callbacks, where a throw ends the process)
    // and a policy that fails while the request is prepared.
    let failing = true;
    const fragile = await startEgressProxy({
      policy: {
        allowedHosts: [`plain.test:${port.plain}`],
        get secrets() {
          if (failing) throw new Error('secrets unavailable');
          return undefined;
        },
      },
      dnsServers: [dns.server],
      onDecision: () => {
        throw new Error('audit hook down');
      },
    });
    const agent = new ProxyAgent({ uri: fragile.url as string, proxyTunnel: false });
    try {
      const broken = await request(`http://plain.test:${port.plain}/a`, { dispatcher: agent });
      expect(broken.statusCode).toBe(502);
      expect(await broken.body.text()).toContain('could not handle the request: secrets unavailable');
      failing = false;
      const fine = await request(`http://plain.test:${port.plain}/b`, { dispatcher: agent });
      expect(fine.statusCode).toBe(200);
      expect(await fine.body.text()).toContain('"url":"/b"');
    } finally {
      await agent.close();
      await fragile.close();
    }
  });

  it('passes on one Content-Length for repeated equal ones, re-frames a chunked body, and refuses a response with both framings', async () => {
    // Without secrets in the policy nothing is scrubbed, and the length passes on.
    const unscrubbed = await startEgressProxy({ policy: { allowedHosts: [`raw.test:${port.raw}`] }, dnsServers: [dns.server] });
    try {
      const repeated = await request(`http://raw.test:${port.raw}/repeated-length`, { dispatcher: new ProxyAgent({ uri: unscrubbed.url as string, proxyTunnel: false }) });
      expect(repeated.headers['content-length']).toBe('2');
      expect(await repeated.body.text()).toBe('ok');
    } finally {
      await unscrubbed.close();
    }
    const chunked = await request(`http://raw.test:${port.raw}/chunked`, { dispatcher: through() });
    expect(await chunked.body.text()).toBe('abc');
    const smuggled = await request(`http://raw.test:${port.raw}/smuggle`, { dispatcher: through() });
    expect(smuggled.statusCode).toBe(502);
    expect(await smuggled.body.text()).toContain('both Transfer-Encoding and Content-Length');
  });

  it('answers a request that is not a proxy request with 400', async () => {
    const response = await request(`${proxy.url as string}/just-a-path`);
    expect(response.statusCode).toBe(400);
    expect(await response.body.text()).toContain('not a proxy request');
  });
});
