// The one contract every gate backend satisfies (docs/gates.md): execute a frozen
// SandboxSpec, report a SandboxRun; say whether it can run here at all (health).
// Backends: wasm (an Airlock Node sandbox), qemu (a microVM), firecracker (KVM hosts).

import type { ProxyDecision } from '../egress-proxy/proxy.js';

export type BackendName = 'wasm' | 'qemu' | 'firecracker';
export const BACKEND_NAMES: readonly BackendName[] = ['wasm', 'qemu', 'firecracker'];

export type NetworkMode = 'none' | 'scoped';

/** A host file or directory made visible to the guest at `guestPath`. */
export interface CopyIn {
  hostPath: string;
  guestPath: string;
  mode: 'ro' | 'rw';
}

/** One command of a run; phases run in order and stop at the first that fails. */
export interface Phase {
  name: string;
  argv: string[];
  /** Defaults to the spec's network; `scoped` only when the spec is `scoped`. */
  network?: NetworkMode;
  /** Working directory in the guest (default: the first copy-in's guest path, else /). */
  cwd?: string;
}

/** What to run and under which limits. Strict (unknown keys refused) and deeply frozen. */
export interface SandboxSpec {
  /** The backend's image: `default` is the guest of the image recipe (qemu) or Airlock's tools (wasm). */
  image: string;
  copyIn: CopyIn[];
  /** Environment of every phase; names must be on the allowlist (spec.ts). */
  env: Record<string, string>;
  phases: Phase[];
  network: NetworkMode;
  /** Hosts (`example.org`, `*.example.org`, optional `:port`) a `scoped` run may reach through the egress proxy. */
  egressAllowlist: string[];
  /** Record every exec and network connection (the trace signal's input). */
  enableTrace: boolean;
  timeBudgetSeconds: number;
  memoryLimitMiB: number;
  pidsLimit: number;
  /** Guest paths brought back after the run (hostile input: checked before it reaches the host). */
  copyOut: string[];
  /** Human-readable; used in log names and listings. */
  label: string;
  /** BLAKE3 of the canonical JSON of every other field (key order cannot change it). */
  specHash: string;
}

/** A spec as written by a caller: everything but the phases has a default; no specHash. */
export type SandboxSpecInput = Partial<Omit<SandboxSpec, 'specHash' | 'phases'>> & { phases: Phase[] };

export interface PhaseResult {
  name: string;
  exitCode: number;
  durationMs: number;
  /** Paths of the phase's stdout and stderr (their last GATE_LIMITS.phaseLogBytes). */
  stdoutPath: string;
  stderrPath: string;
}

/** One normalized trace entry, the same for every backend (trace.jsonl, one per line). */
export type TraceEntry =
  | { kind: 'exec'; path: string; argv: string[] }
  | { kind: 'connect'; host: string; port: number }
  | { kind: 'request'; method: string; url: string };

export interface SandboxRun {
  /** UUIDv7. */
  runId: string;
  spec: SandboxSpec;
  backend: BackendName;
  startedAt: string;
  endedAt: string;
  /** The first failing phase's exit code, or 0; 124 on a timeout, 137 on OOM. */
  exitCode: number;
  durationMs: number;
  /** Seconds a VM (or sandbox) existed for this run: the cost ledger's unit. */
  vmSeconds: number;
  phases: PhaseResult[];
  logsDir: string;
  /** trace.jsonl when the spec enabled the trace, else null. */
  tracePath: string | null;
  /** Where the copy-out paths landed (each under its guest path, without the leading /). */
  copyOutRoot: string;
  timedOut: boolean;
  killedByOom: boolean;
  /** Bytes copied in, and bytes of output accepted back. */
  bytesIn: number;
  bytesOut: number;
  /** Started from a snapshot of a booted guest (qemu, firecracker) rather than a cold boot. */
  warmStart: boolean;
  /** What the backend refused or capped in the guest's output (symlinks, devices, sizes). */
  copyOutRefusals: string[];
}

export interface SandboxHealth {
  backend: BackendName;
  reachable: boolean;
  version: string | null;
  /** Why not reachable, or what is degraded (e.g. TCG instead of KVM). */
  reasons: string[];
  details: Record<string, string>;
}

export interface ExecuteOptions {
  /** Where this run's directory is created (default: the client's runs directory). */
  runsDir?: string;
  /** Progress lines as the run goes (phase started, phase ended). */
  onProgress?: (event: { runId: string; message: string }) => void;
  /** The run has its id and is about to start (the gate's sandbox.run_started event). */
  onStarted?: (run: { runId: string }) => void;
  /** Aborting kills the run; it ends as timed out. */
  signal?: AbortSignal;
  /** Each decision of the egress proxy a `scoped` run goes through (the gate's network.decision events). */
  onNetworkDecision?: (decision: ProxyDecision) => void;
}

export interface SandboxClient {
  readonly backend: BackendName;
  execute(spec: SandboxSpec, options?: ExecuteOptions): Promise<SandboxRun>;
  health(): Promise<SandboxHealth>;
}
