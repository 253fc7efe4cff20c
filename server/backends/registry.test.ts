// The proxy a `scoped` VM run goes through reports each decision to the run's
// onNetworkDecision (the gate runner makes them network.decision audit events), and adds this
// machine's secrets for their bound hosts (a gate worker's own; the guest holds none).
// Loopback only: an upstream opened by an exact host:port entry, and a port the allowlist
// does not name.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyDecision } from '../egress-proxy/proxy.js';
import { egressProxyForSpec, egressProxyWithSecrets } from './registry.js';
import { parseSandboxSpec } from './spec.js';

describe('egressProxyForSpec', () => {
  let upstream: Server;
  let port = 0;
  beforeAll(async () => {
    // Echoes the Authorization it got, as an upstream that reflects headers would.
    upstream = createServer((req, res) => res.end(`from upstream; auth=${req.headers.authorization ?? 'none'}`));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    port = (upstream.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  it("hands every decision of a scoped run's proxy to onDecision", async () => {
    const spec = parseSandboxSpec({ network: 'scoped', egressAllowlist: [`127.0.0.1:${port}`], phases: [{ name: 'fetch', argv: ['true'] }] });
    const decisions: ProxyDecision[] = [];
    const proxy = await egressProxyForSpec(spec, (decision) => decisions.push(decision));
    const agent = new ProxyAgent({ uri: `http://127.0.0.1:${proxy.port}`, proxyTunnel: false });
    try {
      const allowed = await request(`http://127.0.0.1:${port}/ok`, { dispatcher: agent });
      expect(await allowed.body.text()).toBe('from upstream; auth=none');
      const refused = await request(`http://127.0.0.1:${port + 1}/no`, { dispatcher: agent });
      await refused.body.text();
      expect(refused.statusCode).toBe(403);
    } finally {
      await agent.close();
      await proxy.close();
    }
    expect(decisions.map((d) => [d.url, d.allowed])).toEqual([[`http://127.0.0.1:${port}/ok`, true], [`http://127.0.0.1:${port + 1}/no`, false]]);
    expect(decisions[0]).toMatchObject({ enforcer: 'proxy', exception: `127.0.0.1:${port}`, status: 200 });
    expect(decisions[1]?.reason).toBeTruthy();
  });

  it("adds the machine's secrets to a bound host's requests, and scrubs an echo of one", async () => {
    const spec = parseSandboxSpec({ network: 'scoped', egressAllowlist: [`127.0.0.1:${port}`], phases: [{ name: 'fetch', argv: ['true'] }] });
    const secret = 'worker-held-0123456789';
    const proxy = await egressProxyWithSecrets([{ name: 'API_TOKEN', value: secret, hosts: ['127.0.0.1'], header: 'Authorization', template: 'Bearer ${API_TOKEN}' }])(spec);
    const agent = new ProxyAgent({ uri: `http://127.0.0.1:${proxy.port}`, proxyTunnel: false });
    try {
      const response = await request(`http://127.0.0.1:${port}/with-secret`, { dispatcher: agent });
      // The upstream got the secret; what comes back to the guest has it replaced.
      expect(await response.body.text()).toBe('from upstream; auth=Bearer airlock-secret:API_TOKEN');
    } finally {
      await agent.close();
      await proxy.close();
    }
  });
});
