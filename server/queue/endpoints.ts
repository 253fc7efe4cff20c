// The run endpoints workers call, each with the run's own token (Authorization: Bearer):
//   GET  /api/queue/runs/:jobId/artifacts/:n   the workspace tar (x-airlock-sha256: its hash)
//   POST /api/queue/runs/:jobId/events         {events: [started | progress]}
//   POST /api/queue/runs/:jobId/result         the result tar (x-airlock-sha256, x-airlock-run)
// A run's token opens these three for that run and nothing else: the page routes check page
// tokens, and another run's routes check their own token. A result is taken once (409 after).

import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SandboxRunFailed } from '../backends/errors.js';
import { ArtifactError, receiveArtifact } from './artifacts.js';
import { QUEUE_LIMITS, RUN_PATH, SHA256_HEADER, WORKER_HEADER, type WorkerEvent } from './protocol.js';
import { RunAuthError, type RemoteRun, type RemoteRuns } from './remote-runs.js';
import { readRunResult } from './run-result.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function authorized(runs: RemoteRuns, request: FastifyRequest, reply: FastifyReply): RemoteRun | undefined {
  const jobId = (request.params as { jobId: string }).jobId;
  try {
    return runs.authorize(jobId, request.headers.authorization);
  } catch (error) {
    if (!(error instanceof RunAuthError)) throw error;
    request.log.warn({ url: request.url, reason: error.message }, 'refused a run endpoint request');
    void reply.code(error.statusCode).send({ message: error.message });
    return undefined;
  }
}

function duplicate(run: RemoteRun, reply: FastifyReply): FastifyReply {
  return reply.code(409).send({ message: `run ${run.jobId} already has a result${run.resultFrom === null ? '' : ` (from worker ${run.resultFrom})`}: a duplicate delivery changes nothing`, duplicate: true });
}

export function registerRunEndpoints(app: FastifyInstance, runs: RemoteRuns): void {
  // The result arrives as a stream; receiveArtifact caps and hashes it.
  app.addContentTypeParser('application/x-tar', (_request, payload, done) => done(null, payload));

  app.get(`${RUN_PATH}/:jobId/artifacts/:index`, async (request, reply) => {
    const run = authorized(runs, request, reply);
    if (run === undefined) return reply;
    if (run.state === 'done') return duplicate(run, reply);
    const index = Number((request.params as { index: string }).index);
    const artifact = Number.isInteger(index) ? run.artifacts[index] : undefined;
    if (artifact === undefined) return reply.code(404).send({ message: `run ${run.jobId} has no artifact ${String((request.params as { index: string }).index)}` });
    return reply.headers({ 'content-type': 'application/x-tar', 'content-length': String(artifact.bytes), [SHA256_HEADER]: artifact.sha256 }).send(createReadStream(artifact.path));
  });

  app.post(`${RUN_PATH}/:jobId/events`, { bodyLimit: QUEUE_LIMITS.eventsBytes }, async (request, reply) => {
    const run = authorized(runs, request, reply);
    if (run === undefined) return reply;
    if (run.state === 'done') return duplicate(run, reply);
    const events = (request.body as { events?: unknown } | undefined)?.events;
    if (!Array.isArray(events) || events.length > 64) return reply.code(400).send({ message: 'events must be an array of at most 64 events' });
    for (const event of events as WorkerEvent[]) {
      if (event?.type === 'started' && typeof event.sandboxRunId === 'string' && UUID.test(event.sandboxRunId) && typeof event.workerId === 'string') {
        runs.started(run, { sandboxRunId: event.sandboxRunId, workerId: event.workerId.slice(0, 200), host: String(event.host).slice(0, 200), version: String(event.version).slice(0, 100) });
      } else if (event?.type === 'progress' && typeof event.message === 'string') {
        run.options.onProgress?.({ runId: run.deliveries.at(-1)?.sandboxRunId ?? run.jobId, message: event.message.slice(0, 1000) });
      } else return reply.code(400).send({ message: `not a worker event: ${JSON.stringify(event).slice(0, 200)}` });
    }
    return { ok: true };
  });

  app.post(`${RUN_PATH}/:jobId/result`, async (request, reply) => {
    const run = authorized(runs, request, reply);
    if (run === undefined) return reply;
    const body = request.body as Readable;
    if (run.state === 'done' || run.state === 'receiving') {
      body.resume();
      return duplicate(run, reply);
    }
    const sha256 = request.headers[SHA256_HEADER];
    const runId = request.headers['x-airlock-run'];
    const workerId = String(request.headers[WORKER_HEADER] ?? 'unknown').slice(0, 200);
    if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256) || typeof runId !== 'string' || !UUID.test(runId)) {
      body.resume();
      return reply.code(400).send({ message: `a result needs ${SHA256_HEADER} (hex SHA-256) and x-airlock-run (the sandbox run id)` });
    }
    // Claimed before the first await: a second upload racing this one gets 409.
    const previous = run.state;
    run.state = 'receiving';
    const scratch = mkdtempSync(join(run.scratchDir, 'result-'));
    try {
      const tar = await receiveArtifact(body, join(scratch, 'result.tar'), QUEUE_LIMITS.resultBytes, sha256, `run ${run.jobId}: result`);
      const result = await readRunResult(tar.path, run.runsDir, runId, run.spec, run.backend);
      runs.settle(run, result, workerId);
      return { accepted: true, runId };
    } catch (error) {
      run.state = previous;
      rmSync(join(run.runsDir, runId), { recursive: true, force: true });
      if (!(error instanceof ArtifactError)) {
        runs.fail(run, new SandboxRunFailed(`the worker's result could not be stored: ${(error as Error).message}`));
        throw error;
      }
      body.resume();
      return reply.code(400).send({ message: error.message });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
}
