// What the host holds of a running sandbox worker: the kernel API (through comlink), the
// events the worker sends on its own, and the means to end it. Browser Workers and Node
// child processes both provide one.

import type * as Comlink from 'comlink';
import type { KernelApi, KernelInit, WorkerEvent } from '../protocol/messages.js';
import type { OsIsolation } from './types.js';

export interface KernelConnection {
  readonly api: Comlink.Remote<KernelApi>;
  onEvent(listener: (event: WorkerEvent) => void): void;
  /** Resolves with a reason when the worker ends without being asked to (crash, violation). */
  readonly died: Promise<string>;
  /**
   * Set before `died` resolves when a limit enforced outside the worker ended it (Node: the
   * cgroup's sandboxMemoryBytes), so the run reports that limit.
   */
  readonly endedByLimit?: { name: string; value: number };
  /** Ends the worker at once (the hard kill). */
  terminate(): void;
  /**
   * The host has set the worker up (init, and the image of a fork or restart): a platform
   * that keeps a spare worker starts the next one now, not on the way of what just waited.
   */
  settled?(): void;
  /** How the OS confines the worker (a Node child); null where the platform has no OS layer of ours. */
  readonly isolation: OsIsolation | null;
  /**
   * The answer to ConnectOptions.init when the platform has sent it already (a ready spare):
   * the host then does not send init again.
   */
  readonly initialised?: Promise<{ tools: string[] }>;
}

export interface ConnectOptions {
  messageBytes: number;
  /** The whole worker's memory and CPU (limits.ts); where the platform can hold it to them. */
  sandboxMemoryBytes?: number;
  sandboxCpus?: number;
  /** The init message the host will send: a platform may have a spare that has it already. */
  init?: KernelInit;
  /** Keep a spare that has been sent `init` ready for the next connect (after a fork: forks repeat). */
  keepReady?: boolean;
}

/** The environment-specific parts of a sandbox host. */
export interface Platform {
  connect(options: ConnectOptions): Promise<KernelConnection>;
  /** The tool modules to pass to init(). */
  modules(): Promise<import('../protocol/messages.js').ModuleSpec[]>;
  /**
   * Where the platform compiles the modules itself (the browser): those init needs now (the
   * shell's, the others as deferred placeholders) and, later, the deferred ones compiled.
   */
  stagedModules?(): { first: Promise<import('../protocol/messages.js').ModuleSpec[]>; rest: Promise<import('../protocol/messages.js').ModuleSpec[]> };
  /** How this platform makes network requests for the sandbox (after the policy allowed them). */
  network: import('./network/perform.js').NetworkPlatform;
}
