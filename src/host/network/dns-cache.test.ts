// The egress engine's DNS cache: answers kept for their TTL and no longer, failures and
// zero-TTL answers not kept, one query for concurrent lookups, and — the point of the floor —
// a cached answer checked again on every decision (a name cached as private stays refused).

import { describe, expect, it } from 'vitest';
import { startDnsStub } from '../../../tests/network/dns-stub.js';
import { cachedResolver, type TimedAnswer } from './dns-cache.js';
import { nodeResolver } from './node-network.js';
import { decide } from './policy.js';

function counting(answer: (host: string, n: number) => TimedAnswer | Error): { resolve: (host: string) => Promise<string[]>; calls: string[]; clock: { ms: number } } {
  const calls: string[] = [];
  const clock = { ms: 1_000_000 };
  const resolve = cachedResolver(
    async (host) => {
      calls.push(host);
      const found = answer(host, calls.length);
      if (found instanceof Error) throw found;
      return found;
    },
    { now: () => clock.ms, maxEntries: 3 },
  );
  return { resolve, calls, clock };
}

describe('DNS cache', () => {
  it('keeps an answer for its TTL and asks again after it', async () => {
    const { resolve, calls, clock } = counting(() => ({ addresses: ['93.184.216.34'], ttlSeconds: 30 }));
    expect(await resolve('a.test')).toEqual(['93.184.216.34']);
    clock.ms += 29_999;
    await resolve('a.test');
    expect(calls).toEqual(['a.test']);
    clock.ms += 1;
    await resolve('a.test');
    expect(calls).toEqual(['a.test', 'a.test']);
  });

  it('keeps nothing for a zero TTL, caps long TTLs at DNS_CACHE_LIMITS.maxTtlSeconds, and keeps no failure', async () => {
    const zero = counting(() => ({ addresses: ['93.184.216.34'], ttlSeconds: 0 }));
    await zero.resolve('a.test');
    await zero.resolve('a.test');
    expect(zero.calls).toHaveLength(2);

    const long = counting(() => ({ addresses: ['93.184.216.34'], ttlSeconds: 86_400 }));
    await long.resolve('a.test');
    long.clock.ms += 300_000;
    await long.resolve('a.test');
    expect(long.calls).toHaveLength(2);

    const failing = counting((_host, n) => (n === 1 ? new Error('SERVFAIL') : { addresses: ['93.184.216.34'], ttlSeconds: 60 }));
    await expect(failing.resolve('a.test')).rejects.toThrow('SERVFAIL');
    expect(await failing.resolve('a.test')).toEqual(['93.184.216.34']);
  });

  it('asks once for concurrent lookups of one name, and drops the least recently used name when full', async () => {
    const { resolve, calls } = counting(() => ({ addresses: ['93.184.216.34'], ttlSeconds: 60 }));
    await Promise.all([resolve('a.test'), resolve('a.test'), resolve('a.test')]);
    expect(calls).toEqual(['a.test']);
    await resolve('b.test');
    await resolve('c.test');
    await resolve('a.test'); // a.test is now the most recent
    await resolve('d.test'); // full (3): b.test goes
    await resolve('a.test');
    await resolve('b.test');
    expect(calls).toEqual(['a.test', 'b.test', 'c.test', 'd.test', 'b.test']);
  });

  it('honours the TTL a DNS server gives, and the floor still refuses a cached private answer on every request', async () => {
    const dns = await startDnsStub((name, type) => (type !== 'A' ? [] : name === 'inside.test' ? ['10.0.0.7'] : name === 'public.test' ? ['93.184.216.34'] : undefined), { ttlSeconds: 60 });
    const noTtl = await startDnsStub((name, type) => (type === 'A' && name === 'public.test' ? ['93.184.216.34'] : []));
    try {
      const resolve = nodeResolver([dns.server]);
      const policy = { allowedHosts: ['public.test', 'inside.test'] };
      for (let i = 0; i < 3; i++) {
        const refused = await decide(policy, 'GET', new URL('http://inside.test/'), resolve);
        expect(refused).toMatchObject({ allowed: false, rule: 'floor:private' });
        expect(await decide(policy, 'GET', new URL('http://public.test/'), resolve)).toMatchObject({ allowed: true, addresses: ['93.184.216.34'] });
      }
      expect(dns.questions.filter((q) => q.type === 'A').map((q) => q.name)).toEqual(['inside.test', 'public.test']);

      const uncached = nodeResolver([noTtl.server]);
      await uncached('public.test');
      await uncached('public.test');
      expect(noTtl.questions.filter((q) => q.type === 'A')).toHaveLength(2);
    } finally {
      await dns.close();
      await noTtl.close();
    }
  });
});
