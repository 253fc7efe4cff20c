// The queue's address: `redis://[user:password@]HOST:PORT[/DB]` or `rediss://…` (TLS),
// turned into ioredis options. The password travels only to ioredis, never into a log line
// or a job: redactQueueUrl() is what messages print.

import { readFileSync } from 'node:fs';

export class QueueConfigError extends Error {
  override name = 'QueueConfigError';
}

/** The connection options BullMQ and ioredis both take. */
export interface RedisConnection {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls?: { servername: string; ca?: string };
  maxRetriesPerRequest: null;
  retryStrategy: (times: number) => number;
}

export interface QueueAddress {
  /** ioredis options: host, port, db, username/password, tls for rediss://. */
  redis: RedisConnection;
  /** The URL with its password replaced by `***`, for messages. */
  display: string;
}

export interface QueueUrlOptions {
  /** A PEM file of the CA that signed Redis's certificate (default $AIRLOCK_QUEUE_CA; else the system's CAs). */
  caFile?: string | undefined;
}

/**
 * Parses a queue URL. `rediss://` turns TLS on, verifying Redis's certificate against the
 * system's CAs or the one in `caFile` ($AIRLOCK_QUEUE_CA). BullMQ needs
 * `maxRetriesPerRequest: null` on the connections its workers block on, so that a Redis
 * restart is waited out, not thrown.
 */
export function parseQueueUrl(text: string, options: QueueUrlOptions = { caFile: process.env.AIRLOCK_QUEUE_CA }): QueueAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new QueueConfigError(`queue URL ${JSON.stringify(redactText(text))}: not a URL (expected redis://HOST:PORT or rediss://HOST:PORT)`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new QueueConfigError(`queue URL ${redactQueueUrl(url)}: scheme ${url.protocol} is not redis: or rediss:`);
  if (url.hostname === '') throw new QueueConfigError(`queue URL ${redactQueueUrl(url)}: no host`);
  const port = url.port === '' ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d{1,2}$/.test(dbText)) throw new QueueConfigError(`queue URL ${redactQueueUrl(url)}: database ${JSON.stringify(dbText)} is not a number from 0 to 99`);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const redis: RedisConnection = {
    host, port, db: dbText === '' ? 0 : Number(dbText), maxRetriesPerRequest: null,
    // Reconnect forever, backing off to 2 s: a restarted Redis is waited for.
    retryStrategy: (times) => Math.min(50 * times, 2000),
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    ...(url.protocol === 'rediss:' ? { tls: { servername: host, ...(options.caFile === undefined || options.caFile === '' ? {} : { ca: readCa(options.caFile) }) } } : {}),
  };
  return { redis, display: redactQueueUrl(url) };
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new QueueConfigError(`AIRLOCK_QUEUE_CA ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

export function redactQueueUrl(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password !== '') copy.password = '***';
  return copy.href;
}

function redactText(text: string): string {
  return text.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
