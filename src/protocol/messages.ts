// The host⇄worker protocol: the kernel API the host calls (through comlink), and the
// events the worker sends on its own (output as it is produced). Versioned: the worker
// refuses an init whose protocol version it does not speak.

import type { PackagePolicy, SandboxLimits } from './limits.js';
import type { ChangeBatch, InodeRecord, MountEntry } from './records.js';
import type { ImagePage } from './fs-image.js';
import type { NetHead, NetRequest } from './network.js';
import type { RefusalReport } from './audit/refusals.js';
import type { PackageReport } from './audit/package-report.js';

export const PROTOCOL_VERSION = 1;

/** The sandbox user's home: where runs start, and what relative API paths are relative to. */
export const SANDBOX_HOME = '/home/user';

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
  /**
   * Sent later (KernelApi.provideModules): its tools are installed at init and a run of one
   * waits for it. The browser sends the shell's module first, so the first prompt does not
   * wait for the download and compilation of the others.
   */
  deferred?: boolean;
}

/** The deferred modules (ModuleSpec.deferred), or why they cannot be had. */
export type ModuleDelivery = { modules: ModuleSpec[] } | { failed: string };

export interface KernelInit {
  protocolVersion: number;
  modules: ModuleSpec[];
  limits: SandboxLimits;
  /** Tools that may be started; null allows every installed tool. */
  allowedTools: string[] | null;
  hostname: string;
  env: Record<string, string>;
  /** Send an `exec` event for every program started (the gate trace); off by default. */
  traceExec?: boolean;
  /** Host extensions, each a command of that name (docs/extensions.md); none by default. */
  extensions?: ExtensionDecl[];
  /** What `pkg` may install (docs/packages.md); disabled when absent. */
  packages?: PackagePolicy;
  /** Background processes outlive the run that started them (SandboxOptions.keepBackgroundProcesses). */
  keepBackgroundProcesses?: boolean;
}

/** What the sandbox knows of a host extension: its name and its `--help` text, no more. */
export interface ExtensionDecl {
  name: string;
  description: string;
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
  /**
   * Bytes of changed inodes the reply may carry: the first page of takeChanges(), so a run
   * that changes little needs no second round trip to commit.
   */
  changesBudget?: number;
  /** The terminal's size in character cells when the run starts (default 80×24). */
  terminalSize?: { cols: number; rows: number };
}

/**
 * How a run ended. The output is not here: it reached the host as `output` events while the
 * run went on (all of them before this reply), and crossing the boundary twice cost a copy
 * of every byte.
 */
export interface RunReply {
  exitCode: number;
  truncated: { stdout: boolean; stderr: boolean };
  errorClass: ErrorClass | null;
  /** Which limit was hit, when errorClass is 'limit'. */
  limit?: { name: string; value: number };
  /** The session shell's state after the run (the host's checkpoint for the next one). */
  shellState?: Uint8Array;
  /** The working directory after the run: the session shell's, or the argv run's own. */
  cwd: string;
  /** The first page of the run's changes, when the request gave a changesBudget. */
  changes?: ChangeBatch;
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
  /** A symlink's target (stat with `follow: false` of a symlink). */
  target?: string;
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
  /** The modules init named as deferred: compiled, or the reason their runs fail with. */
  provideModules(delivery: ModuleDelivery): Promise<void>;
  run(request: RunRequest): Promise<RunReply>;
  /** Sends SIGINT to the run's processes (Ctrl-C). */
  cancel(runId: number): Promise<void>;
  /** Feeds an interactive run's stdin; null closes it (EOF). */
  writeStdin(runId: number, data: Uint8Array | null): Promise<void>;
  /** The terminal was resized: programs asking for its size from now on see this one. */
  resizeTerminal(size: { cols: number; rows: number }): Promise<void>;
  /** A whole file, or `range` of it (the host reads large files in pieces). */
  readFile(path: string, range?: { offset: number; length: number }): Promise<Uint8Array>;
  writeFile(path: string, data: Uint8Array, options?: WriteFileOptions): Promise<void>;
  readDir(path: string): Promise<DirEntry[]>;
  mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<void>;
  /** Creates a symlink at `path` holding `target` (not resolved, as symlink(2)). */
  symlink(target: string, path: string): Promise<void>;
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
   * the message limit), then `shellState` with the last page. A fork or restart sends the
   * image as pages of inodes (`image`, protocol/fs-image.ts) and only a large file's
   * fragments as records.
   */
  loadImage(page: { records: InodeRecord[]; deleted: number[]; image?: ImagePage; shellState?: Uint8Array; last: boolean }): Promise<void>;
  /** Runs the image's loading on a throwaway made-up image, so a fork's loads compiled code (a ready spare). */
  warmImageLoading(): Promise<void>;
  /** The worker's own view of its realm's hardening (for diagnostics and tests). */
  selfCheck(): Promise<RealmReport>;
  /** The host's answer to a `net-request` event: the head, then the body in chunks. */
  netHead(id: number, head: NetHead): Promise<void>;
  netBody(id: number, chunk: Uint8Array, done: boolean): Promise<void>;
  /**
   * The host's side of an extension call (`extension-call` event): reads up to `max` bytes
   * of the command's stdin (empty at its end); writes to its stdout or stderr (resolves once
   * written: a full pipe holds the handler back); ends the command with `status`, after
   * writing `output` (a handler's returned output: one message for a whole small call). Each
   * rejects once the command has ended (killed, deadline, broken pipe).
   */
  extensionRead(callId: number, max: number): Promise<Uint8Array>;
  extensionWrite(callId: number, stream: 'stdout' | 'stderr', data: Uint8Array): Promise<void>;
  extensionExit(callId: number, status: number, output?: { stdout?: Uint8Array; stderr?: Uint8Array }): Promise<void>;
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
  /** A process of an interactive run waits for stdin (RunOptions.onStdinWanted). */
  | { airlockEvent: 'stdin-wanted'; runId: number }
  /**
   * A program changed the terminal's mode (docs/abi.md, "The terminal"): `flags` has
   * ICANON (2: a line at a time), ECHO (8) and ISIG (1: Ctrl-C is SIGINT) as termios's.
   * Every run ends in cooked mode (all three), told with this event if it was not.
   */
  | { airlockEvent: 'terminal-mode'; runId: number; flags: number }
  /**
   * The run's clock stopped (`held`: Python's interpreter is loading, which is not the
   * program's time) or goes on again; the host's hard kill follows it.
   */
  | { airlockEvent: 'run-clock'; runId: number; held: boolean }
  /** A program was started (only when init asked for traceExec): its resolved path and argv. */
  | { airlockEvent: 'exec'; path: string; argv: string[] }
  /** The kernel's tally of refusals since its last report (src/protocol/audit/refusals.ts). */
  | { airlockEvent: 'refusals'; runId: number | null; refusals: RefusalReport[] }
  /** What pkg installed, removed or refused (src/protocol/audit/package-report.ts). */
  | { airlockEvent: 'package'; report: PackageReport }
  /** A process ran the host extension `name` (docs/extensions.md); the host answers through extensionRead/Write/Exit. */
  | { airlockEvent: 'extension-call'; callId: number; name: string; args: string[]; env: Record<string, string>; cwd: string; stdinIsTerminal: boolean }
  /** An extension's command ended before the host ended it (killed, deadline, broken pipe): stop its handler. */
  | { airlockEvent: 'extension-ended'; callId: number; status: number }
  | { airlockEvent: 'ready' };

export function isWorkerEvent(data: unknown): data is WorkerEvent {
  return typeof data === 'object' && data !== null && 'airlockEvent' in data;
}
