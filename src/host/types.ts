// The public types of the host API.

import type { SandboxLimits } from '../protocol/limits.js';
import type { ErrorClass } from '../protocol/messages.js';

export type { SandboxLimits } from '../protocol/limits.js';
export type { NetworkPolicy } from './network/policy.js';
import type { NetworkPolicy } from './network/policy.js';
import type { InodeRecord } from '../protocol/records.js';
export type { ErrorClass, DirEntry, StatResult } from '../protocol/messages.js';

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
  /** Present stdin/stdout/stderr as a terminal (programs see isatty() true). */
  terminal?: boolean;
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
}

/** A file or directory tree given to mount(): path → content (directories implied). */
export type MountSource = Record<string, string | Uint8Array>;
