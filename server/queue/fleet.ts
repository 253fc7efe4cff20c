// The fleet view: every worker writes a heartbeat record to Redis (a key per worker that
// expires after three missed beats), so `airlock gate health --queue URL` and the server can
// list who is live, what each runs, how loaded it is and what it declined and why. A worker
// killed with -9 simply stops beating and drops out.

import { Redis } from 'ioredis';
import type { BackendName } from '../backends/contract.js';
import { QUEUE_PREFIX } from './protocol.js';
import type { QueueAddress } from './queue-url.js';

export interface WorkerRecord {
  workerId: string;
  host: string;
  pid: number;
  /** airlock's version and the worker's Node. */
  version: string;
  /** Backends it takes jobs for (health said reachable), each with its backend version. */
  backends: BackendName[];
  backendVersions: Partial<Record<BackendName, string>>;
  /** Backends asked for but not served, with the reason. */
  declined: Partial<Record<BackendName, string>>;
  concurrency: number;
  /** Runs in progress now. */
  active: number;
  completed: number;
  startedAt: string;
  lastHeartbeat: string;
}

const KEY_PREFIX = `${QUEUE_PREFIX}:workers:`;

export class WorkerHeartbeat {
  private readonly redis: Redis;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    address: QueueAddress,
    private readonly record: () => Omit<WorkerRecord, 'lastHeartbeat'>,
    private readonly intervalMs: number,
  ) {
    this.redis = new Redis({ ...address.redis, lazyConnect: true });
    this.redis.on('error', () => undefined); // reconnects on its own
  }

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat().catch(() => undefined), this.intervalMs);
    this.timer.unref();
  }

  async beat(): Promise<void> {
    const record: WorkerRecord = { ...this.record(), lastHeartbeat: new Date().toISOString() };
    await this.redis.set(KEY_PREFIX + record.workerId, JSON.stringify(record), 'PX', this.intervalMs * 3);
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    try {
      await this.redis.del(KEY_PREFIX + this.record().workerId);
    } finally {
      this.redis.disconnect();
    }
  }
}

/** The live workers (their last heartbeats), by id. */
export async function listWorkers(address: QueueAddress): Promise<WorkerRecord[]> {
  const redis = new Redis({ ...address.redis, maxRetriesPerRequest: 1, retryStrategy: () => null, lazyConnect: true });
  // ioredis reports why a connection failed (a certificate, a password) as an event; the
  // command itself only learns that the connection closed.
  let cause: Error | undefined;
  redis.on('error', (error: Error) => (cause = error));
  try {
    try {
      await redis.connect();
    } catch (error) {
      throw new Error(cause?.message ?? (error as Error).message);
    }
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${KEY_PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    const values = keys.length === 0 ? [] : await redis.mget(...keys);
    return values.flatMap((value) => {
      try {
        return value === null ? [] : [JSON.parse(value) as WorkerRecord];
      } catch {
        return [];
      }
    }).sort((a, b) => a.workerId.localeCompare(b.workerId));
  } finally {
    redis.disconnect();
  }
}
