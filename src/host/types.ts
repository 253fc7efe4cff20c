// The public types of the host API.

import type { PackagePolicy, SandboxLimits } from '../protocol/limits.js';
import type { ErrorClass } from '../protocol/messages.js';
import type { TerminalMode } from '../protocol/terminal.js';

export type { SandboxLimits } from '../protocol/limits.js';
export type { NetworkPolicy } from './network/policy.js';
import type { NetworkPolicy } from './network/policy.js';
import type { InodeRecord } from '../protocol/records.js';
import type { AuditEvent } from '../protocol/audit/schema.js';
import type { ExtensionSpec } from './extensions/spec.js';
export type { ExtensionCall, ExtensionHandler, ExtensionInput, ExtensionOutput, ExtensionResult, ExtensionSpec } from './extensions/spec.js';
export type { AuditEvent, AuditEventType, AuditSource } from '../protocol/audit/schema.js';
export type { ErrorClass, DirEntry, StatResult } from '../protocol/messages.js';
export type { TerminalMode } from '../protocol/terminal.js';

export interface SandboxOptions {
  /** Any of the limits of docs/limits.md; the rest keep their defaults. */
  limits?: Partial<SandboxLimits>;
  /** Tools that may run (by name, e.g. ['ls', 'grep', 'python3']); all when omitted. */
  allowedTools?: string[];
  /** Extra environment variables for every run. */
  env?: Record<string, string>;
  hostname?: string;
  /** Files to create in /home/user before the first run. */
  files?: Record<string, string | Uint8Array>;
  /** What the sandbox may reach on the network (default: nothing). */
  network?: NetworkPolicy;
  /** A saved session (from exportState() or onCommit deltas) to start from. */
  state?: SessionState;
  /**
   * Let background processes (`cmd &`) live on after the run that started them (a terminal
   * session's jobs). Off by default: a run's processes end with it. Either way they count
   * toward limits.processes and each is held to limits.memoryBytes; in Node all of them
   * together are held to limits.sandboxMemoryBytes and limits.sandboxCpus (`isolation`).
   */
  keepBackgroundProcesses?: boolean;
  /** Called for every program the sandbox starts (its path and argv), as the kernel starts it. */
  onExec?: (event: { path: string; argv: string[] }) => void;
  /** Called for every network request the sandbox makes, before the policy decides on it. */
  onNetRequest?: (event: { method: string; url: string }) => void;
  /**
   * Called with every audit event of this session (docs/audit.md): lifecycle, runs, limits,
   * refusals, network decisions, commits. Synchronous, in order; must not throw.
   */
  onAuditEvent?: (event: AuditEvent) => void;
  /** Names the session in audit events (default: a random `sb-…`; a fork gets its own). */
  sessionId?: string;
  /**
   * Host extensions (docs/extensions.md): each a command of its name inside the sandbox
   * (and a function of Python's `airlock_extensions`), answered by its handler on the host.
   */
  extensions?: ExtensionSpec[];
  /**
   * What `pkg` may install (docs/packages.md): disabled by default. The registry and
   * package hosts are also reachable from the sandbox's network while it is enabled.
   */
  packages?: Partial<PackagePolicy>;
  /** Called after every committed change: the changed inodes, for incremental persistence. */
  onCommit?: (delta: SessionDelta) => void;
}

/** Everything needed to recreate a sandbox's files and shell state. */
export interface SessionState {
  records: InodeRecord[];
  shellState: Uint8Array;
}

/** What one commit changed (records replace earlier ones with the same `ino`). */
export interface SessionDelta {
  records: InodeRecord[];
  deleted: number[];
  shellState: Uint8Array;
}

export interface RunOptions {
  /** Called with output as it is produced (the text decoded as UTF-8, and the raw bytes). */
  onStdout?: (text: string, bytes: Uint8Array) => void;
  onStderr?: (text: string, bytes: Uint8Array) => void;
  /** Overrides limits.timeoutMs for this run. */
  timeoutMs?: number;
  /** Aborting sends Ctrl-C to the run; if it does not end within a second it is killed. */
  signal?: AbortSignal;
  /** Working directory (default /home/user; relative paths are relative to it). */
  cwd?: string;
  /** Environment variables for this run only. */
  env?: Record<string, string>;
  /** Bytes for the run's stdin (default: empty). */
  stdin?: string | Uint8Array;
  /** Keep stdin open for writeStdin() until it is closed (a terminal). */
  interactive?: boolean;
  /**
   * Called (interactive runs) each time a process waits to read stdin and nothing is there:
   * a terminal answers with writeStdin() of a line typed ahead, or keeps it for the shell.
   */
  onStdinWanted?: () => void;
  /** Present stdin/stdout/stderr as a terminal (programs see isatty() true). */
  terminal?: boolean;
  /** The terminal's size in character cells (default 80×24); later changes: resizeTerminal(). */
  terminalSize?: { cols: number; rows: number };
  /**
   * Called when a program changes the terminal's mode (docs/abi.md, "The terminal"), e.g. a
   * pager turning canonical mode and echo off: the terminal then sends each key as typed
   * (writeStdin) and echoes nothing until the mode is cooked again (the run ends cooked).
   */
  onTerminalMode?: (mode: TerminalMode) => void;
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  stdoutBytes: Uint8Array;
  stderrBytes: Uint8Array;
  /** Output went past limits.stdoutBytes or limits.stderrBytes and was cut. */
  truncated: boolean;
  durationMs: number;
  /** Why the run ended abnormally, or null. */
  errorClass: ErrorClass | null;
  /** The limit that was hit, when errorClass is 'limit'. */
  limit?: { name: string; value: number };
  /**
   * The working directory after the run: where the session's next command line starts
   * (for an argv run, the directory it ran in).
   */
  cwd: string;
}

/** A file or directory tree given to mount(): path → content (directories implied). */
export type MountSource = Record<string, string | Uint8Array>;

/**
 * How the OS confines a Node sandbox's child process (`Sandbox.isolation`; null in the
 * browser, whose worker is the browser's own sandbox). docs/security.md says what each
 * wall keeps out and what is lost without it.
 */
export interface OsIsolation {
  /** `bubblewrap` (all of the walls below), `unshare` (network only) or `none`. */
  mechanism: 'bubblewrap' | 'unshare' | 'none';
  /** No network of the host's: no TCP, UDP or abstract Unix socket connects anywhere. */
  network: boolean;
  /** Only the child's code, wasm, Pyodide and the system libraries are visible, read-only: no /tmp, /run or host socket. */
  filesystem: boolean;
  /** Own PID and IPC namespaces: no host process or IPC object is visible. */
  processes: boolean;
  /** A cgroup holds the whole child to limits.sandboxMemoryBytes (past it: errorClass 'limit'). */
  memoryCeiling: boolean;
  /** The same cgroup holds the whole child to limits.sandboxCpus of CPU time. */
  cpuBound: boolean;
  /** That cgroup: its version and directories (v1: memory, then cpu), or null where none could be made. */
  cgroup: { version: 'v1' | 'v2'; paths: string[] } | null;
  /** What is missing and why (empty when every wall holds). */
  missing: string[];
}
