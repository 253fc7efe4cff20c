// The Python escape suite (Node): attempts by Python code to reach past the sandbox through
// Pyodide's JS bridge, the interpreter's internals or the emulated OS. Some attempts may
// reach the Python worker's own JS realm (that realm is assumed compromised, ARCHITECTURE.md
// §1); none may have an effect outside the sandbox: no host file written, no host process
// started, no host environment read, no connection made. Each attempt prints ESCAPED if it
// obtained something it must not have.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonSnapshotReady } from '../python/node-snapshot.js';
import { kernelBundlePath } from './kernel-bundle.js';
import { Sandbox, drainWarmPool } from './index.js';
import { ESCAPE_ATTEMPTS } from './python-escape-attempts.js';

const shellBuilt = existsSync(fileURLToPath(new URL('../../../public/wasm/shell.wasm', import.meta.url)));
const TIMEOUT = 600_000;

let sandbox: Sandbox;
let dir: string;
let server: Server;
let port = 0;
let connections = 0;

describe.skipIf(!shellBuilt)('python escape suite (Node)', { timeout: TIMEOUT }, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-python-escape-'));
    server = createServer((socket) => {
      connections += 1;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    process.env.AIRLOCK_ESCAPE_CANARY = 'host-secret-canary';
    await pythonSnapshotReady(await kernelBundlePath());
    sandbox = await Sandbox.create({});
  }, TIMEOUT);

  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
    server?.close();
    delete process.env.AIRLOCK_ESCAPE_CANARY;
    rmSync(dir, { recursive: true, force: true });
  });

  it('has at least 25 attempts', () => {
    expect(ESCAPE_ATTEMPTS.length).toBeGreaterThanOrEqual(25);
  });

  for (const attempt of ESCAPE_ATTEMPTS) {
    it(`blocks: ${attempt.name}`, async () => {
      const canary = join(dir, attempt.name.replace(/[^a-z0-9]+/gi, '-'));
      const code = attempt.code.replaceAll('CANARY', canary).replaceAll('PORT', String(port));
      const result = await sandbox.run(['python3', '-c', code], { timeoutMs: 120_000 });
      const output = result.stdout + result.stderr;
      expect(output).not.toContain('ESCAPED');
      expect(output).not.toContain('host-secret-canary');
      expect(existsSync(canary)).toBe(false);
      expect(connections).toBe(0);
      // The sandbox is still usable after the attempt.
      expect((await sandbox.run(['python3', '-c', 'import json; print(json.dumps(6 * 7))'], { timeoutMs: 120_000 })).stdout).toBe('42\n');
    });
  }
});
