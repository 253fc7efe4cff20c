// The queue over TLS with a password (rediss://): a Redis of the test's own listening with
// TLS only, its certificate signed by a CA made here and trusted through AIRLOCK_QUEUE_CA.
// A gate runs through it; without the CA the connection is refused (the certificate is checked).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedger } from '../gates/ledger.js';
import { listWorkers } from './fleet.js';
import { placementsOf } from './placement.js';
import { parseQueueUrl } from './queue-url.js';
import { runGate, startKit, tinyWorkspace, type Kit } from './queue-test-kit.js';
import { redisMissing, TestRedis } from './test-redis.js';
import { GateWorker } from './worker.js';

const missing = redisMissing() ?? (spawnSync('openssl', ['version']).status === 0 ? undefined : 'openssl is not installed (it makes the test CA)');

function makeCertificates(dir: string): { cert: string; key: string; ca: string } {
  const run = (args: string[]): void => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args[0]}: ${result.stderr}`);
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=airlock test CA']);
  run(['req', ...ec, '-keyout', 'redis.key', '-out', 'redis.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  run(['x509', '-req', '-in', 'redis.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'redis.pem', '-days', '1', '-extfile', 'san.ext']);
  return { cert: join(dir, 'redis.pem'), key: join(dir, 'redis.key'), ca: join(dir, 'ca.pem') };
}

describe.skipIf(missing !== undefined)(`gate queue over TLS${missing === undefined ? '' : ` — skipped: ${missing}`}`, () => {
  let certs: string;
  let redis: TestRedis;
  let kit: Kit;
  let worker: GateWorker;

  beforeAll(async () => {
    certs = mkdtempSync(join(tmpdir(), 'airlock-queue-tls-'));
    const tls = makeCertificates(certs);
    process.env.AIRLOCK_QUEUE_CA = tls.ca;
    redis = await TestRedis.start({ password: 'tls-test-password', tls });
    kit = await startKit(redis.url);
    worker = new GateWorker({ url: redis.url, backends: ['wasm'], concurrency: 1, workRoot: join(kit.dir, 'work'), heartbeatMs: 500, log: () => undefined });
    await worker.start();
  });
  afterAll(async () => {
    await worker?.close();
    await kit?.close();
    await redis?.close();
    delete process.env.AIRLOCK_QUEUE_CA;
    rmSync(certs, { recursive: true, force: true });
  });

  it('runs a gate through rediss:// with a password', async () => {
    expect(redis.url).toMatch(/^rediss:\/\/:tls-test-password@127\.0\.0\.1:\d+$/);
    const outcome = await runGate(kit, tinyWorkspace(kit.dir, 'tls'));
    expect(outcome.outcome).toBe('passed');
    expect((await readLedger(outcome.ledgerPath)).attempts).toHaveLength(1);
    expect(Object.values(placementsOf(outcome.runDir))[0]?.workerId).toBe(worker.workerId);
  });

  it("refuses Redis's certificate without the CA, and a wrong password", async () => {
    await expect(listWorkers(parseQueueUrl(redis.url, { caFile: '' }))).rejects.toThrow(/certificate/i);
    await expect(listWorkers(parseQueueUrl(redis.url.replace('tls-test-password', 'wrong')))).rejects.toThrow(/WRONGPASS|invalid username-password/i);
  });
});
