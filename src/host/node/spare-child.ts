// The warm pool of sandbox children. Starting Node and compiling the tool modules takes
// ~100 ms, so one spare child is kept per configuration: creating a sandbox then costs an
// init message. The next spare is started once the sandbox that took one has set its child
// up (settled()): starting a child blocks this thread for several milliseconds (cgroup,
// spawn), which a fork would wait for.
//
// A fork repeats its parent's init message, so after a fork the pool also keeps a spare that
// has already been sent that message (a ready spare, keyed by a hash of it): the next fork of
// that family then ships only the checkpoint, and the kernel's set-up ran while nobody waited.
// A ready spare holds a configuration (limits, tools, env with secret placeholders, never a
// secret's value) and nothing of any sandbox's files or shell; each child still serves one
// sandbox only, a spare made for one configuration never serves another, and a ready spare
// is ended when the last sandbox of its configuration is.

import { createHash } from 'node:crypto';
import { serialize } from 'node:v8';
import { DEFAULT_LIMITS } from '../../protocol/limits.js';
import type { KernelInit } from '../../protocol/messages.js';
import type { ConnectOptions, KernelConnection } from '../connection.js';
import { startChild, type ChildConnection, type ChildSpec } from './child-process.js';

/** Ready spares kept at most (distinct configurations that forked); the oldest goes first. */
const MAX_READY = 4;

export class ChildPool {
  private readonly spares = new Map<string, ChildConnection>();
  /** Ready spares by configuration and init message, oldest first. */
  private readonly ready = new Map<string, ChildConnection>();
  /** Live sandboxes per ready key: a ready spare goes when the last of its configuration does. */
  private readonly users = new Map<string, number>();
  /** Counts drain() calls: a refill asked for before the last drain is not made. */
  private drains = 0;

  connect(spec: ChildSpec, options: ConnectOptions): KernelConnection {
    const resources = { memoryBytes: options.sandboxMemoryBytes ?? DEFAULT_LIMITS.sandboxMemoryBytes, cpus: options.sandboxCpus ?? DEFAULT_LIMITS.sandboxCpus };
    const full = { ...spec, messageBytes: options.messageBytes, resources };
    const key = JSON.stringify(full);
    const init = options.init;
    const readyKey = init === undefined ? undefined : `${key}\n${initHash(init)}`;
    let connection = readyKey === undefined ? undefined : this.ready.get(readyKey);
    const wasReady = connection !== undefined;
    if (readyKey !== undefined) this.ready.delete(readyKey);
    if (connection === undefined) {
      connection = this.spares.get(key);
      this.spares.delete(key);
    }
    connection ??= startChild(full);
    connection.hold();
    if (readyKey !== undefined) this.use(readyKey, connection);
    const drains = this.drains;
    connection.refillAfter(() => {
      if (this.drains !== drains) return;
      if (readyKey !== undefined && init !== undefined && options.keepReady === true) this.refillReady(readyKey, full, init);
      if (!wasReady) this.refill(key, full);
    });
    return connection;
  }

  /**
   * Counts `connection` as a user of `readyKey` until it ends. The count is checked on the
   * next turn, so a restart (terminate, then connect again) keeps the ready spare.
   */
  private use(readyKey: string, connection: ChildConnection): void {
    this.users.set(readyKey, (this.users.get(readyKey) ?? 0) + 1);
    connection.onEnded(() => {
      setImmediate(() => {
        const left = (this.users.get(readyKey) ?? 1) - 1;
        if (left > 0) {
          this.users.set(readyKey, left);
          return;
        }
        this.users.delete(readyKey);
        this.ready.get(readyKey)?.terminate();
        this.ready.delete(readyKey);
      });
    });
  }

  private refill(key: string, spec: ChildSpec): void {
    if (this.spares.has(key)) return;
    this.keep(this.spares, key, startChild(spec));
  }

  private refillReady(key: string, spec: ChildSpec, init: KernelInit): void {
    if (this.ready.has(key) || !this.users.has(key)) return;
    for (const [oldest, spare] of this.ready) {
      if (this.ready.size < MAX_READY) break;
      this.ready.delete(oldest);
      spare.terminate();
    }
    const spare = startChild(spec);
    spare.preInit(init);
    this.keep(this.ready, key, spare);
  }

  private keep(map: Map<string, ChildConnection>, key: string, spare: ChildConnection): void {
    map.set(key, spare);
    void spare.died.then(() => {
      if (map.get(key) === spare) map.delete(key);
    });
  }

  /** Ends the spares, ready ones too (tests and CLIs that want to exit promptly). */
  drain(): void {
    this.drains += 1;
    for (const spare of [...this.spares.values(), ...this.ready.values()]) spare.terminate();
    this.spares.clear();
    this.ready.clear();
  }

  /** How many spare children the pool holds now (tests). */
  get size(): number {
    return this.spares.size + this.ready.size;
  }
}

/** Names an init message by its content (what the child would receive). */
function initHash(init: KernelInit): string {
  return createHash('sha256').update(serialize(init)).digest('hex');
}
