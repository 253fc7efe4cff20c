// Default limits of a sandbox (docs/architecture.md §5). Every one is configurable per sandbox.

import { LimitError } from './errors.js';

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
  /** Nesting of $( ) in the shell (passed to the session shell; child shells inherit it). */
  substitutionDepth: number;
  /** Function call depth in the shell (passed like substitutionDepth). */
  callDepth: number;
  /** Largest network response body. */
  networkResponseBytes: number;
  /**
   * Processes alive at once in the sandbox (the session shell included). Each is a wasm
   * instance with its own memory, so this with memoryBytes bounds what a fork bomb takes;
   * a run that reaches it is ended (errorClass 'limit').
   */
  processes: number;
  /**
   * Memory of the whole sandbox (Node: its child process, every program, Python and kept
   * background process in it), held by a cgroup outside the sandbox: past it the kernel's
   * OOM killer ends the child, the run reports errorClass 'limit' and the sandbox is
   * restored from its checkpoint. At least SANDBOX_MEMORY_FLOOR. Not enforced in the browser.
   */
  sandboxMemoryBytes: number;
  /** CPU time of the whole sandbox, in cores' worth (0.5: half of one core), by the same cgroup. */
  sandboxCpus: number;
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
  processes: 128,
  // A 1 GiB process (memoryBytes), Python's interpreter (~300 MiB) and the child's own ~60 MiB
  // fit; two sandboxes can no longer take a host's memory between them.
  sandboxMemoryBytes: 2048 * MiB,
  sandboxCpus: 1,
});

/** The least sandboxMemoryBytes may be: the Node child itself takes ~60 MiB before any program runs. */
export const SANDBOX_MEMORY_FLOOR = 128 * MiB;

/** Time the host gives the kernel past the deadline before it terminates the worker. */
export const HARD_KILL_GRACE_MS = 1000;

/**
 * The longest a run's clock stops while python3 waits for its interpreter to load (the
 * first of a page downloads Pyodide and has its snapshot made): that wait is not the
 * program's time, but it is not allowed to hold a run forever either.
 */
export const PYTHON_LOAD_HOLD_MS = 180_000;

/**
 * The kernel's pagers (less, more, man) hold what they show in memory: they read the first
 * `inputBytes` of their input and say that the rest was not read.
 */
export const PAGER_LIMITS = Object.freeze({
  inputBytes: 32 * MiB,
});

/**
 * The largest values the shell can honour. `$( )` nesting: every level is a live shell
 * process (a wasm instance with its own memory), and the shell bounds nested child shells
 * at 64 (crates/shell/src/shell.rs, MAX_SUBSHELL_DEPTH). Calls: the interpreter recurses on
 * the engine's stack, which holds about 1,300 nested command lists (MAX_NESTING there), so
 * 1,000 calls of a plain function body is what fits with room to spare.
 */
export const SHELL_LIMIT_CEILINGS: Readonly<Pick<SandboxLimits, 'substitutionDepth' | 'callDepth'>> = Object.freeze({
  substitutionDepth: 64,
  callDepth: 1000,
});

export function resolveLimits(partial: Partial<SandboxLimits> | undefined): SandboxLimits {
  const limits = { ...DEFAULT_LIMITS, ...(partial ?? {}) };
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) {
      throw new RangeError(`limit ${name} must be a positive number, got ${String(value)}`);
    }
  }
  if (limits.sandboxMemoryBytes < SANDBOX_MEMORY_FLOOR || !Number.isFinite(limits.sandboxMemoryBytes)) {
    throw new RangeError(`limit sandboxMemoryBytes must be a number of bytes from ${SANDBOX_MEMORY_FLOOR} (the sandbox process itself needs about 60 MiB), got ${limits.sandboxMemoryBytes}`);
  }
  // The CFS quota is counted in microseconds of a 100 ms period: 1 ms is the least it takes.
  if (limits.sandboxCpus < 0.01 || !Number.isFinite(limits.sandboxCpus)) {
    throw new RangeError(`limit sandboxCpus must be a number of cores from 0.01, got ${limits.sandboxCpus}`);
  }
  for (const [name, ceiling] of Object.entries(SHELL_LIMIT_CEILINGS) as Array<[keyof typeof SHELL_LIMIT_CEILINGS, number]>) {
    const value = limits[name];
    if (!Number.isInteger(value) || value > ceiling) {
      throw new RangeError(`limit ${name} must be a whole number from 1 to ${ceiling} (the most the shell can nest), got ${String(value)}`);
    }
  }
  return limits;
}

/**
 * Limits of gate runs (docs/gates.md): what a SandboxSpec may ask for, and what a guest's
 * output may bring back to the host. Every backend and the gate runner read them here.
 */
export const GATE_LIMITS = Object.freeze({
  /** Longest time budget a spec may set, and the default. */
  maxTimeBudgetSeconds: 3600,
  defaultTimeBudgetSeconds: 600,
  /** Memory a spec may give its workload (MiB); the VM gets this plus the guest's own needs. */
  minMemoryLimitMiB: 64,
  maxMemoryLimitMiB: 16_384,
  defaultMemoryLimitMiB: 1024,
  maxPidsLimit: 65_536,
  defaultPidsLimit: 512,
  /** Bytes of host files one spec may copy into the sandbox. */
  copyInBytes: 1024 * MiB,
  /** Files one spec may copy in. */
  copyInEntries: 200_000,
  /** Bytes of the guest's output (logs, trace, copy-out files) the host accepts per run. */
  copyOutBytes: 64 * MiB,
  /** Entries (files and directories) of copy-out the host accepts per run. */
  copyOutEntries: 10_000,
  /** Longest path of a copy-out entry. */
  copyOutPathBytes: 1024,
  /** Bytes of stdout and of stderr kept per phase (the tail, where reports end). */
  phaseLogBytes: 1 * MiB,
  /** Phases in one spec, argv words per phase, bytes of one argv word or env value. */
  maxPhases: 16,
  maxArgvWords: 256,
  maxValueBytes: 16 * 1024,
  /** Attempts of one gate run: the default, and the most an operator may allow. */
  defaultMaxAttempts: 3,
  maxAttemptsOverride: 10,
});

/**
 * The egress engine's DNS cache (src/host/network/dns-cache.ts, docs/network.md): answers are
 * kept for their TTL, at most `maxTtlSeconds`; the system resolver (getaddrinfo) tells no TTL,
 * so its answers are kept `systemTtlSeconds`. Every cached answer is checked again by the
 * floor on each request, and connections go to the addresses checked.
 */
export const DNS_CACHE_LIMITS = Object.freeze({
  maxTtlSeconds: 300,
  systemTtlSeconds: 5,
  /** Names kept at once (least recently used dropped first). */
  maxEntries: 1024,
});

/**
 * The MCP server's sessions (docs/mcp.md): how many clients may hold a sandbox at once, how
 * long an idle one keeps it, and how many forks one client may keep beside its own sandbox.
 */
export const MCP_LIMITS = Object.freeze({
  maxSessions: 16,
  idleMs: 15 * 60_000,
  maxForks: 8,
  /** Largest file read_file returns (bytes); a larger one is refused naming this limit. */
  readFileBytes: 4 * 1024 * 1024,
  /** Entries list_files returns at most. */
  listEntries: 10_000,
});

/**
 * Host extensions (docs/extensions.md): the defaults of an extension's own limits and the
 * most a host may give one. Stdin and output cross the channel in pieces of `chunkBytes`.
 */
export const EXTENSION_LIMITS = Object.freeze({
  defaultTimeoutMs: 30_000,
  maxTimeoutMs: 3_600_000,
  defaultStdinBytes: 1 * MiB,
  maxStdinBytes: 256 * MiB,
  defaultOutputBytes: 1 * MiB,
  maxOutputBytes: 256 * MiB,
  chunkBytes: 64 * 1024,
  /** Longest `--help` text, in UTF-8 bytes. */
  descriptionBytes: 16 * 1024,
  /** Extensions one sandbox may have. */
  maxExtensions: 256,
  /** Calls one sandbox may have running at once (`ext & ext & …`); more are refused. */
  maxConcurrentCalls: 64,
});

/** Limits of executeAgent (docs/agents.md). */
export const AGENT_LIMITS = Object.freeze({
  /** Model turns per phase unless the config sets maxTurns. */
  maxTurns: 50,
  /** The phase's time budget unless the config sets one (the seed's 30 minutes). */
  timeBudgetMs: 30 * 60_000,
  /** A tool result longer than this is cut (and says so) before it goes back to the model. */
  toolOutputBytes: 32 * 1024,
  /** Retries of a provider request answered 429 or 5xx (each after the provider's retry-after). */
  providerRetries: 4,
  /** Largest request body the provider relay forwards (a conversation with its tool results). */
  relayRequestBytes: 32 * 1024 * 1024,
  /** Agent attempts when a gate is named: a failing gate hands its failure to the next one. */
  gateAttempts: 3,
  /** Phases the server runs at once unless agents.maxRuns says otherwise. */
  serverRuns: 4,
  /** Finished phases whose results the server keeps for GET /api/agents/runs/:id. */
  serverResultsKept: 1000,
});

/**
 * The package policy (docs/packages.md): `pkg` installs WASI programs from one registry
 * index, and only when enabled. Downloads go through the host's network path (the
 * gateway's policy engine); `allowedHosts` are the hosts (host or host:port, as in the
 * network policy) a registry and its packages may be fetched from.
 */
export interface PackagePolicy {
  enabled: boolean;
  /** URL of the registry's JSON index; null: none configured. */
  registry: string | null;
  /** Base URL of a PEP 503 simple index `pip install` takes pure-Python wheels from; null: pip refuses. */
  pythonIndex: string | null;
  allowedHosts: string[];
  /** Largest package (its wasm module) `pkg install` accepts. */
  maxPackageBytes: number;
  /** Most packages installed at once. */
  maxInstalledPackages: number;
  /** Largest registry index read. */
  maxIndexBytes: number;
}

export const DEFAULT_PACKAGE_POLICY: Readonly<PackagePolicy> = Object.freeze({
  enabled: false,
  registry: null,
  pythonIndex: null,
  allowedHosts: [],
  maxPackageBytes: 5 * MiB,
  maxInstalledPackages: 50,
  maxIndexBytes: 1 * MiB,
});

/** The package policy a sandbox option asks for, completed with the defaults and checked. */
export function resolvePackagePolicy(partial: Partial<PackagePolicy> | undefined): PackagePolicy {
  const policy: PackagePolicy = { ...DEFAULT_PACKAGE_POLICY, ...(partial ?? {}), allowedHosts: [...(partial?.allowedHosts ?? DEFAULT_PACKAGE_POLICY.allowedHosts)] };
  for (const name of ['maxPackageBytes', 'maxInstalledPackages', 'maxIndexBytes'] as const) {
    const value = policy[name];
    if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`package policy ${name} must be a positive whole number, got ${String(value)}`);
  }
  if (policy.allowedHosts.some((host) => typeof host !== 'string' || host === '')) throw new RangeError('package policy allowedHosts must be host names (host or host:port)');
  for (const name of ['registry', 'pythonIndex'] as const) {
    const url = policy[name];
    if (url !== null && !/^https?:\/\//.test(url)) throw new RangeError(`package policy ${name} must be an http(s) URL, got ${String(url)}`);
  }
  return policy;
}

const utf8 = new TextEncoder();

/**
 * The error for a command string over `limit` bytes of UTF-8 (limits.commandBytes), checked
 * alike by the host and the kernel. A UTF-16 unit is at most 3 bytes of UTF-8, so most
 * commands are let through without being encoded.
 */
export function commandTooLong(command: string, limit: number): LimitError | undefined {
  if (command.length * 3 <= limit) return undefined;
  const bytes = utf8.encode(command).length;
  return bytes > limit ? new LimitError('commandBytes', limit, `command is ${bytes} bytes; the limit commandBytes is ${limit}`) : undefined;
}
