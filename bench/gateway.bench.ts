// Issue 12's figures: decision time of the egress engine for a 1,000-rule policy, and the
// egress proxy's throughput and added latency against a direct loopback connection in the
// same run (plain HTTP, TLS terminated by the proxy, and tunnelled with the SNI checked).
// The upstream servers and the proxy run in processes of their own (gateway-peers.ts).

import { spawn } from 'node:child_process';
import type { LookupFunction } from 'node:net';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import type { EgressProxyOptions } from '../server/egress-proxy/proxy.js';
import { decide, type NetworkPolicy } from '../src/host/network/policy.js';
import type { ProxyReady, UpstreamReady } from './gateway-peers.js';
import { percentile, type BenchRow } from './report.js';

const MiB = 1024 * 1024;
/** Requests of each kind (1 MiB bodies) before the measured ones. */
const WARM_UP_REQUESTS = 48;
/**
 * Small requests of each kind before them: the code each request runs once (the HTTP parser's
 * callbacks, the decision, the upstream exchange) is compiled by V8 only after some hundreds
 * of requests, and 48 left a fresh proxy interpreting it and compiling it on its other
 * threads during the measured requests (0.7 ms of proxy CPU per small request, 0.3 warm).
 */
const WARM_UP_SMALL_REQUESTS = 1000;
/** Measured 1 MiB requests of each kind (CPU time comes in 10 ms ticks: about 100 ms per figure). */
const MEASURED_REQUESTS = 96;

async function decisionTime(): Promise<BenchRow[]> {
  const allowedHosts = [...Array.from({ length: 500 }, (_, i) => `api${i}.example${i % 50}.com`), ...Array.from({ length: 300 }, (_, i) => `*.cdn${i}.example.net`)];
  const rules = Array.from({ length: 200 }, (_, i) => ({ hosts: [`api${i}.example${i % 50}.com`], paths: [`/v${i}/**`], action: 'deny' as const }));
  const policy: NetworkPolicy = { allowedHosts, blockedHosts: ['*.blocked.example'], rules };
  const resolve = async (): Promise<string[]> => ['93.184.216.34'];
  const urls = [new URL('https://api250.example0.com/v1/x'), new URL('https://a.b.cdn299.example.net/file'), new URL('https://nowhere.example.org/')];
  for (let i = 0; i < 2000; i++) await decide(policy, 'GET', urls[i % 3] as URL, resolve);
  const samples: number[] = [];
  for (let i = 0; i < 30_000; i++) {
    const started = performance.now();
    await decide(policy, 'GET', urls[i % 3] as URL, resolve);
    samples.push((performance.now() - started) * 1000);
  }
  return [
    { group: 'gateway', name: 'decision, 1,000-rule policy, p50', value: percentile(samples, 0.5), unit: 'µs', target: '≤ 20 µs' },
    { group: 'gateway', name: 'decision, 1,000-rule policy, p99', value: percentile(samples, 0.99), unit: 'µs' },
  ];
}

/** One request, its body read to the end: milliseconds and body bytes. */
async function fetchOnce(url: string, dispatcher: Dispatcher): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  let bytes = 0;
  const response = await request(url, { dispatcher });
  for await (const chunk of response.body) bytes += (chunk as Buffer).length;
  return { ms: performance.now() - started, bytes };
}

/** CPU time (ms) a process has used, from /proc (10 ms ticks: sum over many requests). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
}

/**
 * Direct and proxied requests alternate, so both see the same machine: under a fluctuating
 * load, measuring one after the other compares two different machines.
 */
async function interleaved(direct: () => Promise<{ ms: number; bytes: number }>, proxied: () => Promise<{ ms: number; bytes: number }>, count: number, proxyPid: number): Promise<{ direct: number[]; proxied: number[]; bytes: number; proxyCpuMs: number }> {
  const times = { direct: [] as number[], proxied: [] as number[] };
  let bytes = 0;
  const cpuBefore = cpuMs(proxyPid);
  for (let i = 0; i < count; i++) {
    times.direct.push((await direct()).ms);
    const one = await proxied();
    times.proxied.push(one.ms);
    bytes += one.bytes;
  }
  return { ...times, bytes, proxyCpuMs: cpuMs(proxyPid) - cpuBefore };
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/** Starts a peer process (gateway-peers.ts) and waits for its JSON line. */
async function startPeer<T>(args: string[]): Promise<{ ready: T; pid: number; stop(): Promise<void> }> {
  // AIRLOCK_BENCH_PROFILE=DIR writes a CPU profile of each peer there (where a proxy's time goes).
  const profile = process.env.AIRLOCK_BENCH_PROFILE === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.AIRLOCK_BENCH_PROFILE}`];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', fileURLToPath(new URL('./gateway-peers.ts', import.meta.url)), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let buffered = '';
  const ready = await new Promise<T>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.indexOf('\n');
      if (line >= 0) resolve(JSON.parse(buffered.slice(0, line)) as T);
    });
    child.once('exit', (code) => reject(new Error(`bench peer ${args[0]} exited (${code}) before it was ready`)));
  });
  return {
    ready,
    pid: child.pid as number,
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}

async function proxyFigures(): Promise<BenchRow[]> {
  const loadAtStart = loadavg()[0] as number;
  const upstream = await startPeer<UpstreamReady>(['upstream']);
  const { plainPort, tlsPort, tunnelPort, ca, dnsServer } = upstream.ready;
  const options: EgressProxyOptions = {
    policy: { allowedHosts: [`plain.test:${plainPort}`, `tls.test:${tlsPort}`, `tunnel.test:${tunnelPort}`], tunnel: ['tunnel.test'] },
    dnsServers: [dnsServer],
    upstreamCa: [ca],
    // A tunnel's byte caps hold for the whole tunnel (many keep-alive requests): open them up here.
    limits: { responseBytes: 1024 * MiB, requestBytes: 1024 * MiB, connections: 256 },
  };
  const proxy = await startPeer<ProxyReady>(['proxy', JSON.stringify(options)]);
  const pinned = { ca, lookup: ((_h, _o, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }])) as LookupFunction };
  const rows: BenchRow[] = [];
  try {
    const cases = [
      { label: 'plain HTTP', direct: `http://127.0.0.1:${plainPort}`, proxied: `http://plain.test:${plainPort}`, directAgent: new Agent(), proxyAgent: new ProxyAgent({ uri: proxy.ready.url, proxyTunnel: false }) },
      { label: 'HTTPS, TLS terminated', direct: `https://tls.test:${tlsPort}`, proxied: `https://tls.test:${tlsPort}`, directAgent: new Agent({ connect: pinned }), proxyAgent: new ProxyAgent({ uri: proxy.ready.url, requestTls: { ca: proxy.ready.caCertificate } }) },
      { label: 'HTTPS, tunnelled', direct: `https://tunnel.test:${tunnelPort}`, proxied: `https://tunnel.test:${tunnelPort}`, directAgent: new Agent({ connect: pinned }), proxyAgent: new ProxyAgent({ uri: proxy.ready.url, requestTls: { ca } }) },
    ];
    for (const c of cases) {
      try {
        // Both paths warmed alike before measuring: the proxy is a long-lived server, and in its
        // first 48 MiB its JIT-compiling showed as half again the CPU per MiB (TLS: two thirds more).
        // The same warm-up, client code, bodies and kept-alive connections on both paths.
        for (let i = 0; i < WARM_UP_SMALL_REQUESTS; i++) await fetchOnce(`${c.direct}/small`, c.directAgent), await fetchOnce(`${c.proxied}/small`, c.proxyAgent);
        for (let i = 0; i < WARM_UP_REQUESTS; i++) await fetchOnce(`${c.direct}/big`, c.directAgent), await fetchOnce(`${c.proxied}/big`, c.proxyAgent);
        const big = await interleaved(() => fetchOnce(`${c.direct}/big`, c.directAgent), () => fetchOnce(`${c.proxied}/big`, c.proxyAgent), MEASURED_REQUESTS, proxy.pid);
        const mib = big.bytes / MiB;
        const directMBs = mib / (sum(big.direct) / 1000);
        const proxiedMBs = mib / (sum(big.proxied) / 1000);
        rows.push({ group: 'gateway', name: `proxy throughput, ${c.label} (1 MiB bodies)`, value: proxiedMBs, unit: 'MiB/s', reference: directMBs, referenceLabel: 'direct loopback', higherIsBetter: true, target: '≥ 70 % of direct' });
        // The same from the medians: one request held up by the machine's other work moves a
        // sum (above) by its whole delay, and a median not at all.
        const perRequestMiB = mib / MEASURED_REQUESTS;
        rows.push({ group: 'gateway', name: `proxy throughput, ${c.label} (1 MiB bodies, from the median request)`, value: perRequestMiB / (percentile(big.proxied, 0.5) / 1000), unit: 'MiB/s', reference: perRequestMiB / (percentile(big.direct, 0.5) / 1000), referenceLabel: 'direct loopback', higherIsBetter: true, target: '≥ 70 % of direct' });
        rows.push({ group: 'gateway', name: `proxy CPU per MiB relayed, ${c.label}`, value: big.proxyCpuMs / mib, unit: 'ms' });
        const small = await interleaved(() => fetchOnce(`${c.direct}/small`, c.directAgent), () => fetchOnce(`${c.proxied}/small`, c.proxyAgent), 400, proxy.pid);
        const directMs = percentile(small.direct, 0.5);
        const proxiedMs = percentile(small.proxied, 0.5);
        rows.push({ group: 'gateway', name: `request through the proxy, ${c.label}, p50`, value: proxiedMs, unit: 'ms', reference: directMs, referenceLabel: 'direct loopback' });
        rows.push({ group: 'gateway', name: `proxy added latency, ${c.label}, p50`, value: proxiedMs - directMs, unit: 'ms', target: '≤ 1 ms' });
        rows.push({ group: 'gateway', name: `proxy added latency, ${c.label}, p10 (least disturbed by load)`, value: percentile(small.proxied, 0.1) - percentile(small.direct, 0.1), unit: 'ms' });
        rows.push({ group: 'gateway', name: `proxy CPU per request, ${c.label}`, value: small.proxyCpuMs / 400, unit: 'ms' });
      } catch (error) {
        console.error(`bench: gateway: ${c.label}: ${(error as Error).message}`);
      }
      await c.directAgent.close();
      await c.proxyAgent.close();
    }
  } finally {
    await proxy.stop();
    await upstream.stop();
  }
  rows.push({ group: 'gateway', name: 'machine load average (1 min) at the start of the proxy figures (2 cores)', value: loadAtStart, unit: '' });
  rows.push({ group: 'gateway', name: 'machine load average (1 min) at their end', value: loadavg()[0] as number, unit: '' });
  return rows;
}

export async function run(): Promise<BenchRow[]> {
  return [...(await decisionTime()), ...(await proxyFigures())];
}
