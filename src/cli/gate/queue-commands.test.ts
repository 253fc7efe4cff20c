// `airlock gate run --queue` and `gate health --queue` through the CLI entry, with a Redis
// of the test's own and a worker in this process; the worker's arguments.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWorkers } from '../../../server/queue/fleet.js';
import { GateWorker } from '../../../server/queue/worker.js';
import { redisMissing, TestRedis } from '../../../server/queue/test-redis.js';
import { cli } from '../../../tests/helpers/cli-capture.js';
import { parseGateArgs } from './args.js';

describe('gate worker arguments', () => {
  it('parses the worker and the queue options, refusing bad values', () => {
    expect(parseGateArgs(['worker', '--queue', 'redis://h:1', '--backends', 'qemu,wasm', '--concurrency', '4'])).toEqual({ ok: true, command: { kind: 'worker', queue: 'redis://h:1', backends: ['qemu', 'wasm'], concurrency: 4 } });
    expect(parseGateArgs(['worker'])).toEqual({ ok: false, error: 'worker needs --queue redis://HOST:PORT' });
    expect(parseGateArgs(['worker', '--queue', 'redis://h:1', '--backends', 'docker'])).toMatchObject({ ok: false, error: expect.stringMatching(/--backends: 'docker' is not one of/) });
    expect(parseGateArgs(['worker', '--queue', 'redis://h:1', '--concurrency', '0'])).toMatchObject({ ok: false, error: "--concurrency: '0' must be an integer from 1 to 64" });
    expect(parseGateArgs(['worker', '--queue', 'redis://h:1', '--config', '/etc/airlock.yaml'])).toMatchObject({ ok: true, command: { kind: 'worker', configFile: '/etc/airlock.yaml' } });
    expect(parseGateArgs(['run', 'tests', '--workspace', '.', '--listen', '127.0.0.1:0'])).toEqual({ ok: false, error: '--listen and --advertise need --queue URL' });
    expect(parseGateArgs(['run', 'tests', '--workspace', '.', '--queue', 'redis://h:1', '--listen', 'nope'])).toEqual({ ok: false, error: "--listen: 'nope' is not HOST:PORT" });
  });
});

describe('gate worker --config', () => {
  it('refuses, before touching the queue, a config file it cannot use: exit 2 naming the file or the secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-worker-config-'));
    try {
      const absent = await cli(['gate', 'worker', '--queue', 'redis://127.0.0.1:1', '--config', join(dir, 'absent.yaml')]);
      expect(absent.code).toBe(2);
      expect(absent.stderr).toContain(`--config ${join(dir, 'absent.yaml')}: ENOENT`);
      const unset = join(dir, 'unset.yaml');
      writeFileSync(unset, 'network:\n  secrets:\n    - { name: GITHUB_TOKEN, env: AIRLOCK_TEST_UNSET_SECRET, hosts: [api.github.com], header: Authorization, template: "Bearer ${GITHUB_TOKEN}" }\n');
      const refused = await cli(['gate', 'worker', '--queue', 'redis://127.0.0.1:1', '--config', unset]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('network.secrets: GITHUB_TOKEN: the environment variable AIRLOCK_TEST_UNSET_SECRET is not set');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const missing = redisMissing();

describe.skipIf(missing !== undefined)(`airlock gate --queue${missing === undefined ? '' : ` — skipped: ${missing}`}`, () => {
  let root: string;
  let redis: TestRedis;
  let worker: GateWorker;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'airlock-gate-queue-cli-'));
    redis = await TestRedis.start();
    worker = new GateWorker({ url: redis.url, backends: ['wasm', 'firecracker'], concurrency: 2, workRoot: join(root, 'work'), heartbeatMs: 500, log: () => undefined });
    await worker.start();
  });
  afterAll(async () => {
    await worker?.close();
    await redis?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs a gate through the queue and lists the fleet', async () => {
    const workspace = join(root, 'ws');
    mkdirSync(join(workspace, '.airlock'), { recursive: true });
    writeFileSync(join(workspace, '.airlock/gate.yaml'), 'test: "echo ok 1 - fine"\n');
    const run = await cli(['gate', 'run', 'tests', '--workspace', workspace, '--backend', 'wasm', '--queue', redis.url, '--gates-dir', join(root, 'gates'), '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'passed', attempts: [{ passed: true }] });
    // The fleet view is the workers' last heartbeats: wait for the one after the run.
    while (!(await listWorkers(worker.address)).some((w) => w.completed === 1 && w.active === 0)) await new Promise((resolve) => setTimeout(resolve, 100));
    const health = await cli(['gate', 'health', '--queue', redis.url]);
    expect(health.code).toBe(0);
    expect(health.stdout).toContain(`${worker.workerId}  `);
    expect(health.stdout).toMatch(/backends: wasm \(node [\d.]+\)  load: 0\/2  done: 1  heartbeat: [\d.]+ s ago/);
    expect(health.stdout).toMatch(/declined firecracker: \S/);
    expect(health.stdout).toMatch(/depth: wasm 0 waiting, 0 active; qemu 0 waiting/);
    const json = JSON.parse((await cli(['gate', 'health', '--queue', redis.url, '--json'])).stdout) as { workers: Array<{ workerId: string }> };
    expect(json.workers.map((w) => w.workerId)).toEqual([worker.workerId]);
  });
});
