// The Python escape suite (Node, in the worker and the inline mode): attempts by Python code
// to reach past the sandbox through Pyodide's JS bridge, the interpreter's internals or the
// emulated OS. No attempt may obtain a JS object (the prelude's purge and the interpreter's
// seal, interpreter-seal.ts) or have an effect outside the sandbox: no host file written, no
// host process started, no host environment read, no connection made to a host TCP or Unix
// socket. Each attempt prints ESCAPED if it obtained something it must not have.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonSnapshotReady } from '../python/node-snapshot.js';
import { kernelBundlePath } from './kernel-bundle.js';
import { Sandbox, drainWarmPool } from './index.js';
import { ESCAPE_ATTEMPTS } from '../../../tests/python-escape/attempts.js';

const shellBuilt = existsSync(fileURLToPath(new URL('../../../public/wasm/shell.wasm', import.meta.url)));
const TIMEOUT = 600_000;

let dir: string;
let server: Server;
let unixServer: Server;
let unixPath: string;
let port = 0;
/** Connections that reached the host's listeners: must stay empty. */
const reached: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-python-escape-'));
  server = createServer((socket) => {
    reached.push('tcp');
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  unixPath = join(dir, 'host.sock');
  unixServer = createServer((socket) => {
    reached.push('unix');
    socket.end();
  });
  await new Promise<void>((resolve) => unixServer.listen(unixPath, resolve));
  process.env.AIRLOCK_ESCAPE_CANARY = 'host-secret-canary';
  await pythonSnapshotReady(await kernelBundlePath());
}, TIMEOUT);

afterAll(() => {
  drainWarmPool();
  server?.close();
  unixServer?.close();
  delete process.env.AIRLOCK_ESCAPE_CANARY;
  rmSync(dir, { recursive: true, force: true });
});

it('has at least 30 attempts', () => {
  expect(ESCAPE_ATTEMPTS.length).toBeGreaterThanOrEqual(30);
});

// Worker mode (Python in a worker_thread of the child) and inline mode (Pyodide in the
// kernel's own realm, as pages without SharedArrayBuffer run it).
for (const pythonMode of ['worker', 'inline'] as const) {
  describe.skipIf(!shellBuilt)(`python escape suite (Node, ${pythonMode} mode)`, { timeout: TIMEOUT }, () => {
    let sandbox: Sandbox;

    beforeAll(async () => {
      sandbox = await Sandbox.create({ pythonMode });
    }, TIMEOUT);

    afterAll(async () => {
      await sandbox?.destroy();
    });

    for (const attempt of ESCAPE_ATTEMPTS) {
      it(`blocks: ${attempt.name}`, async () => {
        const canary = join(dir, attempt.name.replace(/[^a-z0-9]+/gi, '-'));
        const code = attempt.code.replaceAll('CANARY', canary).replaceAll('PORT', String(port)).replaceAll('UNIXPATH', unixPath);
        const result = await sandbox.run(['python3', '-c', code], { timeoutMs: 120_000 });
        const output = result.stdout + result.stderr;
        expect(output).not.toContain('ESCAPED');
        if (attempt.expect !== undefined) expect(output).toMatch(attempt.expect);
        expect(output).not.toContain('host-secret-canary');
        expect(existsSync(canary)).toBe(false);
        expect(reached).toEqual([]);
        // The sandbox is still usable after the attempt.
        expect((await sandbox.run(['python3', '-c', 'import json; print(json.dumps(6 * 7))'], { timeoutMs: 120_000 })).stdout).toBe('42\n');
      });
    }
  });
}
