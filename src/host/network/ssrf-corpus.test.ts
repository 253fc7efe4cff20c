// Runs the SSRF corpus (tests/network/ssrf-corpus.yaml): each case decided by the engine with
// a stub resolver, then performed through a platform whose hop is instrumented. Nothing here
// opens a connection: the corpus holds private and metadata targets, which are tested by
// decision only (loopback ones run for real in escapes.test.ts).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { performRequest, type HopRequest, type NetworkPlatform } from './perform.js';
import { decide, type NetworkPolicy } from './policy.js';

interface Case {
  class: string;
  url: string;
  policy: string;
  expect: 'allow' | 'refuse';
  note?: string;
  dns?: Record<string, string[] | 'fail'>;
  failure?: 'resolve' | 'bad-url';
  lookups?: number;
  redirects?: string[];
  method?: string;
}

const corpus = parse(readFileSync(fileURLToPath(new URL('../../../tests/network/ssrf-corpus.yaml', import.meta.url)), 'utf8')) as { policies: Record<string, NetworkPolicy>; cases: Case[] };

function stubResolver(dns: Case['dns']): { resolve: (host: string) => Promise<string[]>; lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    async resolve(host) {
      lookups.push(host);
      const answer = dns?.[host];
      if (answer === 'fail') throw Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return answer ?? ['93.184.216.34'];
    },
  };
}

describe('the SSRF corpus', () => {
  it('has at least 150 cases in every class the issue lists', () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(150);
    const classes = new Set(corpus.cases.map((c) => c.class));
    for (const name of ['range', 'range-v6', 'embedded', 'literal-form', 'dns', 'dns-failure', 'no-lookup', 'parser', 'scheme', 'redirect', 'exception']) expect(classes, name).toContain(name);
  });

  for (const [index, c] of corpus.cases.entries()) {
    it(`#${index} ${c.class}: ${JSON.stringify(c.url)} → ${c.expect}${c.note ? ` (${c.note})` : ''}`, async () => {
      const policy = corpus.policies[c.policy];
      expect(policy, c.policy).toBeDefined();
      const method = c.method ?? 'GET';
      // 1. The decision, on the first URL.
      if (c.failure === 'bad-url') {
        expect(() => new URL(c.url)).toThrow();
      } else {
        const stub = stubResolver(c.dns);
        const decision = await decide(policy, method, new URL(c.url), stub.resolve);
        if (c.redirects === undefined) expect(decision.allowed ? 'allow' : `refuse: ${decision.reason}`).toMatch(c.expect === 'allow' ? /^allow$/ : /^refuse: /);
        if (c.failure === 'resolve') expect(decision).toMatchObject({ allowed: false, failure: 'resolve' });
        if (c.lookups !== undefined) expect(stub.lookups).toHaveLength(c.lookups);
      }
      // 2. Performed: the hop is called only for what was allowed, redirects decided again.
      const hops: string[] = [];
      const redirects = [...(c.redirects ?? [])];
      const stub = stubResolver(c.dns);
      const platform: NetworkPlatform = {
        resolve: stub.resolve,
        async hop(request: HopRequest) {
          hops.push(request.url);
          const location = redirects.shift();
          const headers: Array<[string, string]> = location === undefined ? [] : [['location', location]];
          return { status: location === undefined ? 200 : 302, statusText: '', headers, body: undefined };
        },
      };
      const performed = await performRequest({ method, url: c.url, headers: [], followRedirects: true, maxRedirects: 5, timeoutMs: 10_000 }, policy, 1024, platform);
      if (c.expect === 'allow') {
        expect(performed.head).toMatchObject({ ok: true, status: 200 });
        expect(hops).toHaveLength((c.redirects?.length ?? 0) + 1);
      } else {
        expect(performed.head.ok).toBe(false);
        if (c.failure !== undefined) expect(performed.head).toMatchObject({ failure: c.failure });
        expect(hops).toHaveLength(c.redirects?.length ?? 0);
      }
      if (c.lookups !== undefined) expect(stub.lookups).toHaveLength(c.lookups);
    });
  }
});
