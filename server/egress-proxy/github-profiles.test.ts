// The token-profile matrix (issue 12): each profile × GitHub API and git smart-HTTP calls,
// through the egress proxy to a fake GitHub on loopback (api.github.com and github.com
// resolve to 127.0.0.1 through a DNS stub). A refused call never reaches the fake.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyAgent, request } from 'undici';
import { GITHUB_PROFILES, type GithubProfile } from '../../src/host/network/github-profiles.js';
import { decide } from '../../src/host/network/policy.js';
import { startDnsStub, type DnsStub } from '../../tests/network/dns-stub.js';
import { startEgressProxy } from './proxy.js';

interface Call {
  name: string;
  method: string;
  host: 'api.github.com' | 'github.com';
  path: string;
  body?: string;
  /** The least profile that allows it. */
  needs: GithubProfile;
}

const graphql = (query: string): string => JSON.stringify({ query });

const CALLS: Call[] = [
  { name: 'read a repository', method: 'GET', host: 'api.github.com', path: '/repos/o/r', needs: 'read' },
  { name: 'list issues', method: 'GET', host: 'api.github.com', path: '/repos/o/r/issues', needs: 'read' },
  { name: 'clone: ref discovery', method: 'GET', host: 'github.com', path: '/o/r.git/info/refs?service=git-upload-pack', needs: 'read' },
  { name: 'clone: upload-pack', method: 'POST', host: 'github.com', path: '/o/r.git/git-upload-pack', body: '0000', needs: 'read' },
  { name: 'GraphQL query', method: 'POST', host: 'api.github.com', path: '/graphql', body: graphql('{ viewer { login } }'), needs: 'read' },
  { name: 'comment on an issue', method: 'POST', host: 'api.github.com', path: '/repos/o/r/issues/1/comments', body: '{}', needs: 'issues-write' },
  { name: 'open an issue', method: 'POST', host: 'api.github.com', path: '/repos/o/r/issues', body: '{}', needs: 'issues-write' },
  { name: 'GraphQL addComment', method: 'POST', host: 'api.github.com', path: '/graphql', body: graphql('mutation { addComment(input: {subjectId: "x", body: "hi"}) { clientMutationId } }'), needs: 'issues-write' },
  { name: 'open a pull request', method: 'POST', host: 'api.github.com', path: '/repos/o/r/pulls', body: '{}', needs: 'review-write' },
  { name: 'review a pull request', method: 'POST', host: 'api.github.com', path: '/repos/o/r/pulls/2/reviews', body: '{}', needs: 'review-write' },
  { name: 'GraphQL addPullRequestReview', method: 'POST', host: 'api.github.com', path: '/graphql', body: graphql('mutation M { addPullRequestReview(input: {pullRequestId: "x"}) { clientMutationId } }'), needs: 'review-write' },
  { name: 'merge a pull request', method: 'PUT', host: 'api.github.com', path: '/repos/o/r/pulls/2/merge', body: '{}', needs: 'repo-write' },
  { name: 'write a file', method: 'PUT', host: 'api.github.com', path: '/repos/o/r/contents/a.txt', body: '{}', needs: 'repo-write' },
  { name: 'push: ref discovery', method: 'GET', host: 'github.com', path: '/o/r.git/info/refs?service=git-receive-pack', needs: 'repo-write' },
  { name: 'push: receive-pack', method: 'POST', host: 'github.com', path: '/o/r.git/git-receive-pack', body: '0000', needs: 'repo-write' },
  { name: 'GraphQL createRef', method: 'POST', host: 'api.github.com', path: '/graphql', body: graphql('query Q { viewer { login } } mutation { createRef(input: {repositoryId: "x", name: "refs/heads/x", oid: "0"}) { clientMutationId } }'), needs: 'repo-write' },
];

const LEVEL: Record<GithubProfile, number> = { read: 0, 'issues-write': 1, 'review-write': 2, 'repo-write': 3 };

describe('GitHub token profiles through the egress proxy', () => {
  let dns: DnsStub;
  let fake: Server;
  let port = 0;
  const received: string[] = [];

  beforeAll(async () => {
    dns = await startDnsStub((name, type) => (type === 'A' && (name === 'api.github.com' || name === 'github.com') ? ['127.0.0.1'] : type === 'A' ? undefined : []));
    fake = createServer((req, res) => {
      received.push(`${req.headers.host} ${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => res.end('fake github'));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    port = (fake.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => fake?.close(resolve));
    await dns?.close();
  });

  for (const profile of GITHUB_PROFILES) {
    it(`${profile}: allowed and refused exactly as the table says`, async () => {
      const proxy = await startEgressProxy({ policy: { allowedHosts: [`api.github.com:${port}`, `github.com:${port}`], githubProfile: profile }, dnsServers: [dns.server] });
      const agent = new ProxyAgent({ uri: proxy.url as string, proxyTunnel: false });
      try {
        for (const call of CALLS) {
          const before = received.length;
          const response = await request(`http://${call.host}:${port}${call.path}`, { dispatcher: agent, method: call.method as 'GET', body: call.body });
          const text = await response.body.text();
          const allowed = LEVEL[profile] >= LEVEL[call.needs];
          expect({ call: call.name, status: response.statusCode }).toEqual({ call: call.name, status: allowed ? 200 : 403 });
          expect(received.length - before, call.name).toBe(allowed ? 1 : 0);
          if (!allowed) expect(text, call.name).toContain(`needs the ${call.needs} GitHub profile; this session has ${profile}`);
        }
      } finally {
        await agent.close();
        await proxy.close();
      }
    });
  }

  it('refuses a GraphQL body it cannot read, and subscriptions, below repo-write', async () => {
    const proxy = await startEgressProxy({ policy: { allowedHosts: [`api.github.com:${port}`], githubProfile: 'review-write' }, dnsServers: [dns.server] });
    const agent = new ProxyAgent({ uri: proxy.url as string, proxyTunnel: false });
    try {
      for (const [body, reason] of [
        ['not json', 'the GraphQL request is not JSON'],
        [graphql('mutation {'), 'the GraphQL query does not parse'],
        [graphql('subscription { x }'), 'GraphQL subscriptions are refused'],
        [graphql('mutation { ...F } fragment F on Mutation { mergePullRequest(input: {}) { clientMutationId } }'), 'a GraphQL mutation through a fragment needs the repo-write GitHub profile'],
      ]) {
        const response = await request(`http://api.github.com:${port}/graphql`, { dispatcher: agent, method: 'POST', body });
        expect(response.statusCode).toBe(403);
        expect(await response.body.text()).toContain(reason);
      }
    } finally {
      await agent.close();
      await proxy.close();
    }
  });

  it('refuses a path that is not valid percent-encoding, with the reason, and goes on answering', async () => {
    // decodeURIComponent throws on `%zz`: decide() must refuse instead of rejecting (which,
    // in the proxy's request handler, was an unhandled rejection that ended the process).
    expect(await decide({ allowedHosts: ['api.github.com'], githubProfile: 'read' }, 'GET', new URL('https://api.github.com/%zz'))).toEqual({
      allowed: false,
      rule: 'githubProfile:read',
      reason: 'the path "/%zz" is not valid percent-encoding; refused under the read GitHub profile',
    });
    const proxy = await startEgressProxy({ policy: { allowedHosts: [`api.github.com:${port}`], githubProfile: 'read' }, dnsServers: [dns.server] });
    const agent = new ProxyAgent({ uri: proxy.url as string, proxyTunnel: false });
    try {
      const before = received.length;
      const refused = await request(`http://api.github.com:${port}/repos/o/r/%E0%A4%A`, { dispatcher: agent });
      expect(refused.statusCode).toBe(403);
      expect(await refused.body.text()).toContain('is not valid percent-encoding; refused under the read GitHub profile');
      expect(received.length).toBe(before);
      const next = await request(`http://api.github.com:${port}/repos/o/r`, { dispatcher: agent });
      expect(next.statusCode).toBe(200);
      await next.body.text();
    } finally {
      await agent.close();
      await proxy.close();
    }
  });
});
