// `airlock gate worker` (take gate runs from the queue and run them here), the queued
// client of `gate run --queue` (this process serves the run endpoints its workers call) and
// `gate health --queue` (the fleet: workers, backends, versions, load, heartbeats; depth).

import Fastify from 'fastify';
import type { BackendName, SandboxClient } from '../../../server/backends/contract.js';
import { createQueueDispatch, GateWorker, listWorkers, parseQueueUrl, registerRunEndpoints, QueueConfigError } from '../../../server/queue/index.js';
import { GateQueue } from '../../../server/queue/producer.js';
import { ConfigError, fileLayer, resolveConfig } from '../../../server/config/load.js';
import { loadSecrets } from '../../../server/gateway/secret-sources.js';
import type { SecretBinding } from '../../host/network/secrets.js';
import type { QueueTarget, WorkerCommand } from './args.js';

/** Runs a worker until SIGINT or SIGTERM; exit 1 when it can serve none of its backends. */
export async function runWorker(command: WorkerCommand): Promise<number> {
  let secrets: SecretBinding[] = [];
  if (command.configFile !== undefined) {
    try {
      secrets = loadSecrets(resolveConfig([fileLayer(command.configFile)]).network.secrets ?? [], process.env);
    } catch (error) {
      // A bad file names itself (ConfigError: file:line: reason); a missing one, its errno.
      const unreadable = (error as NodeJS.ErrnoException).code !== undefined;
      if (!(error instanceof ConfigError) && !unreadable) throw error;
      process.stderr.write(`airlock gate worker: ${error instanceof ConfigError ? '' : `--config ${command.configFile}: `}${(error as Error).message}\n`);
      return 2;
    }
  }
  const worker = new GateWorker({
    url: command.queue, backends: command.backends, concurrency: command.concurrency, secrets,
    ...(command.workDir === undefined ? {} : { workRoot: command.workDir }),
    ...(command.lockMs === undefined ? {} : { lockDurationMs: command.lockMs }),
    ...(command.stalledIntervalMs === undefined ? {} : { stalledIntervalMs: command.stalledIntervalMs }),
    ...(command.heartbeatMs === undefined ? {} : { heartbeatMs: command.heartbeatMs }),
  });
  await worker.start();
  if (worker.served.length === 0) {
    process.stderr.write(`airlock gate worker: none of ${command.backends.join(', ')} can run here; declined: ${Object.entries(worker.declined).map(([b, why]) => `${b}: ${why}`).join('; ')}\n`);
    await worker.close();
    return 1;
  }
  // Printed once ready: what a supervisor (or a test) waits for.
  process.stdout.write(`worker ${worker.workerId} ready: ${worker.served.join(',')}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await worker.close();
  return 0;
}

/** A client whose runs go to the queue; close() stops the endpoints after the gate run. */
export async function queuedClient(target: QueueTarget, backend: BackendName): Promise<{ client: SandboxClient; close(): Promise<void> }> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  let endpoint = target.advertise ?? '';
  const dispatch = createQueueDispatch({ url: target.url, endpoint: () => endpoint });
  registerRunEndpoints(app, dispatch.runs);
  const address = await app.listen({ host: target.listenHost, port: target.listenPort });
  if (endpoint === '') endpoint = address;
  return {
    client: dispatch.client(backend),
    async close() {
      await dispatch.close();
      await app.close();
    },
  };
}

function ago(iso: string): string {
  return `${((Date.now() - Date.parse(iso)) / 1000).toFixed(1)} s ago`;
}

export async function queueHealth(url: string, json: boolean): Promise<number> {
  let address;
  try {
    address = parseQueueUrl(url);
  } catch (error) {
    if (error instanceof QueueConfigError) {
      process.stderr.write(`airlock gate: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const queue = new GateQueue(address);
  try {
    const workers = await listWorkers(address);
    const depth = await queue.depth();
    if (json) {
      process.stdout.write(`${JSON.stringify({ queue: address.display, workers, depth }, null, 2)}\n`);
    } else {
      const lines = [`queue ${address.display}: ${workers.length} live worker${workers.length === 1 ? '' : 's'}`];
      for (const w of workers) {
        lines.push(`${w.workerId}  ${w.host} pid ${w.pid}  ${w.version}`);
        lines.push(`  backends: ${w.backends.map((b) => `${b} (${w.backendVersions[b] ?? '?'})`).join(', ') || 'none'}  load: ${w.active}/${w.concurrency}  done: ${w.completed}  heartbeat: ${ago(w.lastHeartbeat)}`);
        for (const [backend, why] of Object.entries(w.declined)) lines.push(`  declined ${backend}: ${why}`);
      }
      lines.push(`depth: ${depth.map((d) => `${d.backend} ${d.waiting} waiting, ${d.active} active${d.delayed > 0 ? `, ${d.delayed} delayed` : ''}${d.failed > 0 ? `, ${d.failed} failed` : ''}`).join('; ')}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    return workers.length > 0 ? 0 : 1;
  } catch (error) {
    process.stderr.write(`airlock gate: the queue ${address.display} does not answer: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await queue.close();
  }
}
