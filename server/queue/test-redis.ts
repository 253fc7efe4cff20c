// Tests' own Redis: Debian's redis-server on a free loopback port with its data in a temp
// dir, persistence on (appendonly, fsync on every write) so a restart loses nothing. Tests
// skip with this reason when redis-server is not installed (npm test's setup installs it).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export const REDIS_SERVER = 'redis-server';

/** Why the queue tests cannot run here, or undefined. */
export function redisMissing(): string | undefined {
  const found = spawnSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' });
  return found.status === 0 ? undefined : `${REDIS_SERVER} is not installed (apt-get install redis-server; npm test's setup does it)`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export class TestRedis {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    readonly password: string | undefined,
    /** PEM files: Redis then listens with TLS only (rediss://). */
    readonly tls: { cert: string; key: string; ca: string } | undefined,
  ) {}

  static async start(options: { password?: string; tls?: { cert: string; key: string; ca: string } } = {}): Promise<TestRedis> {
    const redis = new TestRedis(await freePort(), mkdtempSync(join(tmpdir(), 'airlock-test-redis-')), options.password, options.tls);
    await redis.spawn();
    return redis;
  }

  get url(): string {
    return `${this.tls === undefined ? 'redis' : 'rediss'}://${this.password === undefined ? '' : `:${encodeURIComponent(this.password)}@`}127.0.0.1:${this.port}`;
  }

  private async spawn(): Promise<void> {
    const ports = this.tls === undefined ? ['--port', String(this.port)] : ['--port', '0', '--tls-port', String(this.port), '--tls-cert-file', this.tls.cert, '--tls-key-file', this.tls.key, '--tls-ca-cert-file', this.tls.ca, '--tls-auth-clients', 'no'];
    const args = [...ports, '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--daemonize', 'no', '--loglevel', 'warning'];
    if (this.password !== undefined) args.push('--requirepass', this.password);
    this.child = spawn(REDIS_SERVER, args, { stdio: 'ignore' });
    const tls = this.tls === undefined ? {} : { tls: { ca: readFileSync(this.tls.ca, 'utf8'), servername: '127.0.0.1' } };
    for (let tries = 0; tries < 200; tries++) {
      const client = new Redis({ host: '127.0.0.1', port: this.port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, ...tls, ...(this.password === undefined ? {} : { password: this.password }) });
      client.on('error', () => undefined);
      try {
        await client.connect();
        if ((await client.ping()) === 'PONG') return;
      } catch {
        // not listening yet
      } finally {
        client.disconnect();
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server did not start on 127.0.0.1:${this.port}`);
  }

  /** Stops Redis (SHUTDOWN: the append-only file is synced) and starts it again from its data. */
  async restart(downMs = 1000): Promise<void> {
    await this.stop();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.spawn();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM'); // redis-server shuts down cleanly on SIGTERM, syncing the AOF
    await exited;
    this.child = undefined;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
