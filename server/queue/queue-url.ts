// The queue's address: `redis://[user:password@]HOST:PORT[/DB]` or `rediss://…` (TLS),
// turned into ioredis options. The password travels only to ioredis, never into a log line
// or a job: redactQueueUrl() is what messages print.

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
  tls?: { servername: string };
  maxRetriesPerRequest: null;
  retryStrategy: (times: number) => number;
}

export interface QueueAddress {
  /** ioredis options: host, port, db, username/password, tls for rediss://. */
  redis: RedisConnection;
  /** The URL with its password replaced by `***`, for messages. */
  display: string;
}

/**
 * Parses a queue URL. `rediss://` turns TLS on (the system's CAs; `?ca=` is not read: point
 * NODE_EXTRA_CA_CERTS at a private CA). BullMQ needs `maxRetriesPerRequest: null` on the
 * connections its workers block on, so that a Redis restart is waited out, not thrown.
 */
export function parseQueueUrl(text: string): QueueAddress {
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
    ...(url.protocol === 'rediss:' ? { tls: { servername: host } } : {}),
  };
  return { redis, display: redactQueueUrl(url) };
}

export function redactQueueUrl(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password !== '') copy.password = '***';
  return copy.href;
}

function redactText(text: string): string {
  return text.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
