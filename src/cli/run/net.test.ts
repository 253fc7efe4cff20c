// `airlock run`'s network options, in process: --net (hosts and groups), --net-mode,
// --net-log on stderr, --net-policy files checked with file, line and reason.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../main.js';
import { parseRunArgs } from './args.js';
import { runPolicy } from './net-policy.js';

async function cli(argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString()), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString()), true));
  try {
    const status = await main(argv);
    return { status, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('airlock run --net', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-net-cli-'));
  let server: Server;
  let port = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('parses the options and builds the policy', () => {
    const parsed = parseRunArgs(['--net', 'github', '--net', 'example.com:8443', '--net-mode', 'open', '--net-log', '-c', 'true']);
    expect(parsed).toMatchObject({ ok: true, command: { net: ['github', 'example.com:8443'], netMode: 'open', netLog: true } });
    expect(runPolicy({ net: ['github'], netMode: 'strict' })).toEqual({ allowedHosts: ['github'], mode: 'strict' });
    expect(runPolicy({ net: [] })).toBeUndefined();
    expect(parseRunArgs(['--net-mode', 'loose', '-c', 'true'])).toEqual({ ok: false, error: "--net-mode needs strict or open, not 'loose'" });
  });

  it('reaches what --net allows and logs every decision with --net-log', async () => {
    const result = await cli(['run', '--net', `127.0.0.1:${port}`, '--net-log', '-c', `curl -s http://127.0.0.1:${port}/; curl -s http://elsewhere.test/; echo " $?"`]);
    expect(result.stdout).toBe('hello 7\n');
    // The rule that decided, the exact host:port entry that opened loopback, and how the request went.
    expect(result.stderr).toMatch(new RegExp(`airlock: net: allowed GET http://127\\.0\\.0\\.1:${port}/ \\(rule allowedHosts:127\\.0\\.0\\.1:${port}, loopback/private exception 127\\.0\\.0\\.1:${port}\\) status 200, 5 bytes, \\d+ ms\n`));
    expect(result.stderr).toContain('airlock: net: refused GET http://elsewhere.test/ (rule allowedHosts): elsewhere.test is not in network.allowedHosts\n');
  });

  it('reads a policy file and stops at a bad one, naming file, line and reason', async () => {
    const good = join(dir, 'good.yaml');
    writeFileSync(good, `allowedHosts:\n  - 127.0.0.1:${port}\nmethods: [GET]\n`);
    const refused = await cli(['run', '--net-policy', good, '-c', `curl -s -X POST http://127.0.0.1:${port}/; echo "$?"`]);
    expect(refused.stdout).toBe('7\n');
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'mode: strict\nallowHosts: [example.com]\n');
    const result = await cli(['run', '--net-policy', bad, '-c', 'true']);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`airlock run: invalid network policy:\n${bad}:2: unknown key allowHosts\n`);
  });
});
