// The queue service: with `queue.url` configured, the server enqueues its gate runs for
// remote workers (BullMQ on Redis) and serves the run endpoints they call; without it,
// nothing is registered and gates run in-process as before.
//
// The gates service asks remoteClientFor(context, backend) for its client. The dispatch is
// kept per ServiceContext (one per built app) in a WeakMap, because services share nothing
// but the context and a second app in the same process (tests) must get its own.

import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { BackendName, SandboxClient } from '../backends/contract.js';
import type { ServerService, ServiceContext } from '../service.js';
import { createQueueDispatch, type QueueDispatch } from './dispatch.js';
import { registerRunEndpoints } from './endpoints.js';
import { listWorkers } from './fleet.js';

const dispatches = new WeakMap<ServiceContext, QueueDispatch>();

/** The queued client of `backend` when the server has a queue; undefined runs in-process. */
export function remoteClientFor(context: ServiceContext, backend: BackendName): SandboxClient | undefined {
  return dispatches.get(context)?.client(backend);
}

function ownEndpoint(app: FastifyInstance, context: ServiceContext): string {
  if (context.config.queue.advertise !== undefined) return context.config.queue.advertise;
  const address = app.server.address() as AddressInfo | string | null;
  const host = context.config.server.host.includes(':') ? `[${context.config.server.host}]` : context.config.server.host;
  return `http://${host}:${typeof address === 'object' && address !== null ? address.port : context.config.server.port}`;
}

export const queueService: ServerService = {
  name: 'queue',
  register(app, context) {
    const url = context.config.queue.url;
    if (url === undefined) return;
    const dispatch = createQueueDispatch({ url, endpoint: () => ownEndpoint(app, context), ...(context.config.queue.scratchDir === undefined ? {} : { scratchRoot: context.config.queue.scratchDir }) });
    dispatches.set(context, dispatch);
    registerRunEndpoints(app, dispatch.runs);
    // The fleet for the playground and operators (page-token only, like every page route).
    app.get('/api/queue/fleet', { onRequest: context.pageOnly }, async () => ({
      queue: dispatch.address.display, workers: await listWorkers(dispatch.address), depth: await dispatch.queue.depth(), waitingHere: dispatch.runs.pending,
    }));
    app.addHook('onClose', () => dispatch.close());
  },
};

export { createQueueDispatch, type QueueDispatch } from './dispatch.js';
export { GateWorker, type GateWorkerOptions } from './worker.js';
export { listWorkers, type WorkerRecord } from './fleet.js';
export { parseQueueUrl, QueueConfigError } from './queue-url.js';
export { registerRunEndpoints } from './endpoints.js';
