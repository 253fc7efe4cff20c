// The gateway bench's other processes: the upstream servers (and the DNS stub that names
// them) in one, the egress proxy in another — as in real use, where the proxy runs in the
// server and its clients are guests. Sharing the bench's event loop, client, proxy and
// upstream would take turns on one thread, measuring JS contention rather than the proxy.
// Each prints one JSON line when ready and ends when its stdin closes (or after 10 minutes).

import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createEphemeralCa } from '../server/egress-proxy/ca.js';
import { startEgressProxy, type EgressProxyOptions } from '../server/egress-proxy/proxy.js';
import { startDnsStub } from '../tests/network/dns-stub.js';

const MiB = 1024 * 1024;

export interface UpstreamReady {
  plainPort: number;
  tlsPort: number;
  tunnelPort: number;
  ca: string;
  dnsServer: string;
}

export interface ProxyReady {
  url: string;
  caCertificate: string;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function upstream(): Promise<() => Promise<void>> {
  const payload = Buffer.alloc(MiB, 'x');
  const handler = (req: { url?: string }, res: { end(body: Buffer | string): void }): void => res.end(req.url === '/big' ? payload : 'ok');
  const ca = await createEphemeralCa('bench upstream CA');
  const servers = [createHttpServer(handler), createHttpsServer(await ca.leafFor('tls.test'), handler), createHttpsServer(await ca.leafFor('tunnel.test'), handler)];
  const [plainPort, tlsPort, tunnelPort] = [await listen(servers[0] as Server), await listen(servers[1] as Server), await listen(servers[2] as Server)];
  // Answers with a TTL, as real DNS gives (the proxy keeps them that long, checking them on each request).
  const dns = await startDnsStub((_name, type) => (type === 'A' ? ['127.0.0.1'] : []), { ttlSeconds: 300 });
  const ready: UpstreamReady = { plainPort: plainPort as number, tlsPort: tlsPort as number, tunnelPort: tunnelPort as number, ca: ca.certificate, dnsServer: dns.server };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  return async () => {
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await dns.close();
  };
}

async function proxy(options: EgressProxyOptions): Promise<() => Promise<void>> {
  const started = await startEgressProxy(options);
  const ready: ProxyReady = { url: started.url as string, caCertificate: started.caCertificate };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  return () => started.close();
}

const role = process.argv[2];
const stop = role === 'upstream' ? await upstream() : await proxy(JSON.parse(process.argv[3] ?? '{}') as EgressProxyOptions);
const end = (): void => void stop().finally(() => process.exit(0));
process.stdin.on('end', end).on('close', end).resume();
setTimeout(end, 10 * 60_000).unref();
