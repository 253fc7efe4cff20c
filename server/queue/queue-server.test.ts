// The queue inside the real server: with queue.url configured, POST /api/gates/runs
// enqueues, a worker runs it, GET /api/gates/runs/:id says where (executedOn); a run's
// token opens none of the server's other routes. Without queue.url nothing changes (the
// gates service's own tests).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_EVENTS_PATH } from '../../src/protocol/audit/api.js';
import { PAGE_TOKEN_HEADER } from '../../src/protocol/server.js';
import { GATES_RUNS_PATH } from '../gates/service/gates-service.js';
import { serverConfig, startServer, type RunningServer } from '../main.js';
import { QUEUE_PREFIX, artifactPath, queueName, type GateJob } from './protocol.js';
import { parseQueueUrl } from './queue-url.js';
import { redisMissing, TestRedis } from './test-redis.js';
import { GateWorker } from './worker.js';

const missing = redisMissing();

describe.skipIf(missing !== undefined)(`gate queue in the server${missing === undefined ? '' : ` — skipped: ${missing}`}`, () => {
  let dir: string;
  let redis: TestRedis;
  let server: RunningServer;
  let headers: Record<string, string>;

  beforeAll(async () => {
    redis = await TestRedis.start({ password: 'server-test' });
    dir = mkdtempSync(join(tmpdir(), 'airlock-queue-server-'));
    mkdirSync(join(dir, 'web'));
    writeFileSync(join(dir, 'web/index.html'), '<!doctype html><title>t</title>');
    mkdirSync(join(dir, 'workspaces/app/.airlock'), { recursive: true });
    writeFileSync(join(dir, 'workspaces/app/.airlock/gate.yaml'), 'test: "echo ok 1 - fine"\n');
    server = await startServer(serverConfig({
      server: { port: 0, web: join(dir, 'web') }, log: { level: 'silent' },
      gates: { workspaces: join(dir, 'workspaces'), dir: join(dir, 'gates') }, queue: { url: redis.url, scratchDir: join(dir, 'scratch') },
    }));
    headers = { [PAGE_TOKEN_HEADER]: server.tokens.mint(), 'content-type': 'application/json' };
  });
  afterAll(async () => {
    await server?.close();
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("enqueues page gate runs, shows where they ran, and a run's token opens nothing else", async () => {
    const started = await fetch(new URL(GATES_RUNS_PATH, server.url), { method: 'POST', headers, body: JSON.stringify({ gate: 'tests', workspace: 'app', backend: 'wasm' }) });
    expect(started.status).toBe(202);
    const { gateRunId } = (await started.json()) as { gateRunId: string };
    // No worker yet: the job waits in the queue with its token.
    const address = parseQueueUrl(redis.url);
    const queue = new Queue<GateJob>(queueName('wasm'), { connection: { ...address.redis }, prefix: QUEUE_PREFIX });
    let job: GateJob | undefined;
    for (let i = 0; i < 200 && job === undefined; i++) {
      job = (await queue.getWaiting())[0]?.data;
      if (job === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await queue.close();
    if (job === undefined) throw new Error('the run was not enqueued');
    expect(job.endpoint).toBe(server.url.replace(/\/$/, ''));
    expect(JSON.stringify(job)).not.toContain('server-test'); // the Redis password is not in the payload
    const bearer = { authorization: `Bearer ${job.token}` };
    for (const path of [GATES_RUNS_PATH, `${GATES_RUNS_PATH}/${gateRunId}`, AUDIT_EVENTS_PATH, '/api/queue/fleet']) {
      expect((await fetch(new URL(path, server.url), { headers: bearer })).status, path).toBe(403);
    }
    const fleet = (await (await fetch(new URL('/api/queue/fleet', server.url), { headers })).json()) as { depth: Array<{ backend: string; waiting: number }>; workers: unknown[] };
    expect(fleet.workers).toEqual([]);
    expect(fleet.depth.find((d) => d.backend === 'wasm')?.waiting).toBe(1);
    const own = await fetch(new URL(artifactPath(job.jobId, 0), server.url), { headers: bearer });
    expect(own.status).toBe(200);
    await own.arrayBuffer();

    const worker = new GateWorker({ url: redis.url, backends: ['wasm'], concurrency: 1, workRoot: join(dir, 'work'), heartbeatMs: 500, log: () => undefined });
    await worker.start();
    try {
      await (await fetch(new URL(`${GATES_RUNS_PATH}/${gateRunId}/events`, server.url), { headers })).text();
      const result = (await (await fetch(new URL(`${GATES_RUNS_PATH}/${gateRunId}`, server.url), { headers })).json()) as { manifest: { outcome: string }; attempts: Array<{ sandboxRunId: string }>; executedOn: Record<string, { workerId: string }> };
      expect(result.manifest.outcome).toBe('passed');
      const runId = result.attempts[0]?.sandboxRunId ?? '';
      expect(result.executedOn[runId]?.workerId).toBe(worker.workerId);
    } finally {
      await worker.close();
    }
  });
});
