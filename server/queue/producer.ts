// The producing side of the gate queue (BullMQ on Redis): one queue per backend, a job per
// sandbox run with the run id as BullMQ's jobId (adding it again adds nothing), a few
// delivery attempts for infrastructure failures, and the queue's own events so the server
// hears of a job that failed for good (a worker that kept crashing, an artifact that never
// verified). Queue depth comes from BullMQ's job counts.

import { Queue, QueueEvents } from 'bullmq';
import { BACKEND_NAMES, type BackendName } from '../backends/contract.js';
import { QUEUE_LIMITS, QUEUE_PREFIX, queueName, type GateJob } from './protocol.js';
import type { QueueAddress } from './queue-url.js';

export interface QueueDepth {
  backend: BackendName;
  /** Jobs no worker has taken yet. */
  waiting: number;
  active: number;
  /** Jobs waiting out a backoff after a failed delivery. */
  delayed: number;
  failed: number;
}

export class GateQueue {
  private readonly queues = new Map<BackendName, Queue>();
  private readonly events = new Map<BackendName, QueueEvents>();
  private readonly failedListeners = new Set<(jobId: string, reason: string) => void>();

  constructor(private readonly address: QueueAddress) {}

  private queue(backend: BackendName): Queue {
    let queue = this.queues.get(backend);
    if (queue === undefined) {
      queue = new Queue(queueName(backend), { connection: { ...this.address.redis }, prefix: QUEUE_PREFIX });
      queue.on('error', () => undefined); // ioredis reconnects; a restart of Redis is not fatal
      this.queues.set(backend, queue);
    }
    return queue;
  }

  /** Starts listening for failed jobs of `backend` (before its first job is added). */
  async watch(backend: BackendName): Promise<void> {
    if (this.events.has(backend)) return;
    const events = new QueueEvents(queueName(backend), { connection: { ...this.address.redis }, prefix: QUEUE_PREFIX });
    events.on('error', () => undefined);
    events.on('failed', ({ jobId, failedReason }) => {
      for (const listener of this.failedListeners) listener(jobId, failedReason);
    });
    this.events.set(backend, events);
    await events.waitUntilReady();
  }

  onFailed(listener: (jobId: string, reason: string) => void): void {
    this.failedListeners.add(listener);
  }

  async enqueue(job: GateJob): Promise<void> {
    await this.watch(job.backend);
    await this.queue(job.backend).add(job.gateId, job, {
      jobId: job.jobId,
      attempts: QUEUE_LIMITS.jobAttempts,
      backoff: { type: 'exponential', delay: 1000 },
      // Kept a while so a late duplicate add is still recognized, then dropped.
      removeOnComplete: { age: 24 * 3600, count: 10_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  /** Removes a job nobody has started (a cancelled gate run); an active one runs out. */
  async cancel(backend: BackendName, jobId: string): Promise<void> {
    const job = await this.queue(backend).getJob(jobId);
    if (job !== undefined && (await job.isWaiting() || await job.isDelayed())) await job.remove();
  }

  async depth(): Promise<QueueDepth[]> {
    const depths: QueueDepth[] = [];
    for (const backend of BACKEND_NAMES) {
      const counts = await this.queue(backend).getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
      depths.push({ backend, waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0), active: counts.active ?? 0, delayed: counts.delayed ?? 0, failed: counts.failed ?? 0 });
    }
    return depths;
  }

  async close(): Promise<void> {
    await Promise.all([...this.events.values()].map((events) => events.close()));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}
