// The host⇄worker protocol: the kernel API the host calls (through comlink), and the
// events the worker sends on its own (output as it is produced). Versioned: the worker
// refuses an init whose protocol version it does not speak.

import type { SandboxLimits } from './limits.js';
import type { ChangeBatch, InodeRecord, MountEntry } from './records.js';
import type { NetHead, NetRequest } from './network.js';

export const PROTOCOL_VERSION = 1;

/** A compiled program and the tools (argv[0] names) it provides. */
export interface ModuleSpec {
  name: string;
  tools: string[];
  /** Compiled by the host (browser); or `bytes`, compiled in the worker (Node). */
  module?: WebAssembly.Module;
  bytes?: Uint8Array;
  /** Initial pages of the imported memory (required with `module`; read from `bytes`). */
  memoryMinPages?: number;
  asyncifyBytes?: number;
}

export interface KernelInit {
  protocolVersion: number;
  modules: ModuleSpec[];
  limits: SandboxLimits;
  /** Tools that may be started; null allows every installed tool. */
  allowedTools: string[] | null;
  hostname: string;
  env: Record<string, string>;
}

export type ErrorClass = 'timeout' | 'cancelled' | 'limit' | 'crash' | 'not-found' | 'denied' | 'worker-restarted';

export interface RunRequest {
  runId: number;
  /** A shell command line, or an argv run directly without a shell. */
  command: string | string[];
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs: number;
  stdin?: Uint8Array;
  /** Keep stdin open for writeStdin() (terminal use). */
  interactiveStdin?: boolean;
  /** Present stdout/stderr as a terminal (isatty true). */
  terminal?: boolean;
}

export interface RunReply {
  exitCode: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  truncated: { stdout: boolean; stderr: boolean };
  errorClass: ErrorClass | null;
  /** Which limit was hit, when errorClass is 'limit'. */
  limit?: { name: string; value: number };
  /** The session shell's state after the run (the host's checkpoint for the next one). */
  shellState?: Uint8Array;
}

export interface DirEntry {
  name: string;
  kind: 'file' | 'dir' | 'symlink' | 'chardev';
}

export interface StatResult {
  kind: 'file' | 'dir' | 'symlink' | 'chardev';
  size: number;
  mode: number;
  mtimeMs: number;
  atimeMs: number;
  ctimeMs: number;
  ino: number;
  writable: boolean;
}

export interface WriteFileOptions {
  mode?: number;
  /** Create missing parent directories. */
  parents?: boolean;
  /** Write at this offset without truncating (the host splits large writes into pieces). */
  offset?: number;
}

/** What the worker exposes. All paths are absolute or relative to /home/user. */
export interface KernelApi {
  init(init: KernelInit): Promise<{ tools: string[] }>;
  run(request: RunRequest): Promise<RunReply>;
  /** Sends SIGINT to the run's processes (Ctrl-C). */
  cancel(runId: number): Promise<void>;
  /** Feeds an interactive run's stdin; null closes it (EOF). */
  writeStdin(runId: number, data: Uint8Array | null): Promise<void>;
  /** A whole file, or `range` of it (the host reads large files in pieces). */
  readFile(path: string, range?: { offset: number; length: number }): Promise<Uint8Array>;
  writeFile(path: string, data: Uint8Array, options?: WriteFileOptions): Promise<void>;
  readDir(path: string): Promise<DirEntry[]>;
  mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<void>;
  stat(path: string, options?: { follow?: boolean }): Promise<StatResult>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  mount(at: string, entries: MountEntry[]): Promise<void>;
  /** Takes a copy-on-write snapshot under the host's id. */
  snapshot(id: number): Promise<void>;
  /** Restores snapshot `id`; false when this kernel does not have it (e.g. after a restart). */
  restore(id: number): Promise<boolean>;
  dropSnapshot(id: number): Promise<void>;
  /** Changed inodes since the last call, paged by `budgetBytes`. */
  takeChanges(budgetBytes: number): Promise<ChangeBatch>;
  /**
   * Replays records of a saved session on top of the boot tree (several calls, each under
   * the message limit), then `shellState` with the last page.
   */
  loadImage(page: { records: InodeRecord[]; deleted: number[]; shellState?: Uint8Array; last: boolean }): Promise<void>;
  /** The worker's own view of its realm's hardening (for diagnostics and tests). */
  selfCheck(): Promise<RealmReport>;
  /** The host's answer to a `net-request` event: the head, then the body in chunks. */
  netHead(id: number, head: NetHead): Promise<void>;
  netBody(id: number, chunk: Uint8Array, done: boolean): Promise<void>;
}

export interface RealmReport {
  /** Forbidden globals (workers/harden.ts) still reachable. Must be empty. */
  reachableGlobals: string[];
  /** Whether eval / new Function work. Must be 'blocked'. */
  codeGeneration: 'blocked' | 'allowed';
}

/** Messages the worker sends without being asked. */
export type WorkerEvent =
  | { airlockEvent: 'output'; runId: number; stream: 'stdout' | 'stderr'; data: Uint8Array }
  | { airlockEvent: 'net-request'; id: number; request: NetRequest }
  | { airlockEvent: 'ready' };

export function isWorkerEvent(data: unknown): data is WorkerEvent {
  return typeof data === 'object' && data !== null && 'airlockEvent' in data;
}
