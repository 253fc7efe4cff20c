// Default limits of a sandbox (ARCHITECTURE.md §5). Every one is configurable per sandbox.

export interface SandboxLimits {
  /** Wall-clock limit of one run(): the kernel's deadline, then the host's hard kill. */
  timeoutMs: number;
  /** Bytes of stdout kept per run; beyond this the result says `truncated`. */
  stdoutBytes: number;
  /** Bytes of stderr kept per run. */
  stderrBytes: number;
  /** Bytes of file content the sandbox may store. */
  fsBytes: number;
  /** Files, directories and symlinks the sandbox may create (Infinity: unlimited). */
  fileCount: number;
  /** Longest command accepted by run(), checked before parsing. */
  commandBytes: number;
  /** Largest message either side of the host⇄worker channel accepts. */
  messageBytes: number;
  /** Linear memory of one process. */
  memoryBytes: number;
  /** Nesting of $( ) in the shell. */
  substitutionDepth: number;
  /** Function call depth in the shell. */
  callDepth: number;
  /** Largest network response body. */
  networkResponseBytes: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  timeoutMs: 30_000,
  stdoutBytes: 1 * MiB,
  stderrBytes: 1 * MiB,
  fsBytes: 256 * MiB,
  fileCount: Infinity,
  commandBytes: 64 * 1024,
  messageBytes: 8 * MiB,
  memoryBytes: 1024 * MiB,
  substitutionDepth: 50,
  callDepth: 1000,
  networkResponseBytes: 10 * MiB,
});

/** Time the host gives the kernel past the deadline before it terminates the worker. */
export const HARD_KILL_GRACE_MS = 1000;

export function resolveLimits(partial: Partial<SandboxLimits> | undefined): SandboxLimits {
  const limits = { ...DEFAULT_LIMITS, ...(partial ?? {}) };
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) {
      throw new RangeError(`limit ${name} must be a positive number, got ${String(value)}`);
    }
  }
  return limits;
}
