// The `wasm` backend: a spec runs in an Airlock Node sandbox (a hardened child process
// around our own WebAssembly kernel). Starting takes milliseconds, and the trace is exact:
// every program start is reported by our kernel as it starts it (the `exec` event) and
// every network request is seen by the host before its policy decides — nothing sampled.
// Only Airlock's own tools run here (bash, coreutils, python3): native toolchains need a VM.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sandbox, type NetworkPolicy, type RunResult } from '../../../src/host/node/index.js';
import { GATE_LIMITS } from '../../../src/protocol/limits.js';
import type { MountEntry } from '../../../src/protocol/records.js';
import type { ExecuteOptions, PhaseResult, SandboxClient, SandboxHealth, SandboxRun, SandboxSpec, TraceEntry } from '../contract.js';
import { walkCopyIn, newCopyInBudget } from '../copy-in.js';
import { CopyOutWriter } from '../copy-out.js';
import { SandboxSpecError } from '../errors.js';
import { createRunDir, defaultGatesDir, logTail, phaseLogPaths, writeRunRecord, writeTrace } from '../run-dir.js';

const HOME = '/home/user';
/** Bytes one mount message may carry (the sandbox's messageBytes less room for the rest). */
const MOUNT_BUDGET = 7 * 1024 * 1024;

function writableInSandbox(path: string): boolean {
  return path === HOME || path.startsWith(`${HOME}/`) || path === '/tmp' || path.startsWith('/tmp/');
}

export class WasmSandboxClient implements SandboxClient {
  readonly backend = 'wasm' as const;

  constructor(private readonly runsDir: string = join(defaultGatesDir(), 'sandbox-runs')) {}

  async health(): Promise<SandboxHealth> {
    const started = performance.now();
    try {
      const sandbox = await Sandbox.create();
      try {
        const result = await sandbox.run(['true']);
        const reachable = result.exitCode === 0;
        return {
          backend: 'wasm', reachable, version: `node ${process.versions.node}`,
          reasons: reachable ? [] : [`'true' exited ${result.exitCode}`],
          details: { startToExitMs: (performance.now() - started).toFixed(1), tools: String(sandbox.installedTools.length) },
        };
      } finally {
        await sandbox.destroy();
      }
    } catch (error) {
      return { backend: 'wasm', reachable: false, version: `node ${process.versions.node}`, reasons: [(error as Error).message], details: {} };
    }
  }

  async execute(spec: SandboxSpec, options: ExecuteOptions = {}): Promise<SandboxRun> {
    const runDir = createRunDir(options.runsDir ?? this.runsDir);
    options.onStarted?.({ runId: runDir.runId });
    const startedAt = new Date();
    const started = performance.now();
    const trace: TraceEntry[] = [];
    const network: NetworkPolicy = spec.network === 'scoped' ? { allowedHosts: [...spec.egressAllowlist] } : {};
    let phaseNetwork = spec.network;
    network.onRequest = () => phaseNetwork === 'scoped';
    const sandbox = await Sandbox.create({
      limits: { memoryBytes: spec.memoryLimitMiB * 1024 * 1024, timeoutMs: spec.timeBudgetSeconds * 1000 },
      env: { ...spec.env },
      network,
      ...(spec.enableTrace
        ? {
            onExec: (event: { path: string; argv: string[] }) => trace.push({ kind: 'exec', path: event.path, argv: event.argv }),
            onNetRequest: (event: { method: string; url: string }) => trace.push({ kind: 'request', method: event.method, url: event.url }),
          }
        : {}),
    });
    const phases: PhaseResult[] = [];
    let exitCode = 0;
    let timedOut = false;
    let killedByOom = false;
    let bytesIn = 0;
    const writer = new CopyOutWriter(runDir.copyOutRoot);
    try {
      bytesIn = await copyIn(sandbox, spec);
      const deadline = performance.now() + spec.timeBudgetSeconds * 1000;
      for (const [index, phase] of spec.phases.entries()) {
        const remaining = Math.floor(deadline - performance.now());
        if (remaining <= 0) {
          timedOut = true;
          exitCode = 124;
          break;
        }
        phaseNetwork = phase.network ?? spec.network;
        options.onProgress?.({ runId: runDir.runId, message: `phase ${phase.name} started` });
        const phaseStarted = performance.now();
        const result: RunResult = await sandbox.run([...phase.argv], { cwd: phase.cwd ?? spec.copyIn[0]?.guestPath ?? HOME, timeoutMs: remaining, signal: options.signal });
        const paths = phaseLogPaths(runDir.logsDir, index, phase.name);
        writeFileSync(paths.stdoutPath, logTail(result.stdoutBytes, GATE_LIMITS.phaseLogBytes));
        writeFileSync(paths.stderrPath, logTail(result.stderrBytes, GATE_LIMITS.phaseLogBytes));
        phases.push({ name: phase.name, exitCode: result.exitCode, durationMs: Math.round(performance.now() - phaseStarted), ...paths });
        options.onProgress?.({ runId: runDir.runId, message: `phase ${phase.name} exited ${result.exitCode}` });
        if (result.errorClass === 'timeout' || result.errorClass === 'cancelled') timedOut = true;
        if (result.errorClass === 'limit' && result.limit?.name === 'memoryBytes') killedByOom = true;
        if (result.exitCode !== 0) {
          exitCode = timedOut ? 124 : killedByOom ? 137 : result.exitCode;
          break;
        }
      }
      for (const path of spec.copyOut) await copyOutTree(sandbox, path, writer);
    } finally {
      await sandbox.destroy();
    }
    if (spec.enableTrace) writeTrace(runDir.tracePath, trace);
    const durationMs = Math.round(performance.now() - started);
    const run: SandboxRun = {
      runId: runDir.runId, spec, backend: 'wasm', startedAt: startedAt.toISOString(), endedAt: new Date().toISOString(),
      exitCode, durationMs, vmSeconds: durationMs / 1000, phases, logsDir: runDir.logsDir,
      tracePath: spec.enableTrace ? runDir.tracePath : null, copyOutRoot: runDir.copyOutRoot,
      timedOut, killedByOom, bytesIn, bytesOut: writer.bytesWritten, warmStart: false, copyOutRefusals: writer.refusals,
    };
    writeRunRecord(runDir.dir, run);
    return run;
  }
}

/** Copies the spec's host trees in: `ro` as a read-only mount, `rw` as files in a writable tree. */
async function copyIn(sandbox: Sandbox, spec: SandboxSpec): Promise<number> {
  const budget = newCopyInBudget();
  for (const entry of spec.copyIn) {
    const items = [...walkCopyIn(entry.hostPath, budget)];
    if (entry.mode === 'ro') {
      const mounts: MountEntry[] = [];
      let bytes = 0;
      for (const item of items) {
        if (item.relPath === '') continue;
        if (item.kind === 'file') {
          const data = readFileSync(item.hostPath);
          bytes += data.length;
          mounts.push({ path: item.relPath, kind: 'file', data, mode: item.mode });
        } else if (item.kind === 'dir') mounts.push({ path: item.relPath, kind: 'dir', mode: item.mode });
        else mounts.push({ path: item.relPath, kind: 'symlink', target: item.target ?? '' });
      }
      if (bytes > MOUNT_BUDGET) throw new SandboxSpecError(`copyIn ${entry.hostPath}: ${bytes} bytes is more than the wasm backend mounts read-only (${MOUNT_BUDGET}); use mode rw under ${HOME}`);
      await sandbox.mount(entry.guestPath, mounts);
      continue;
    }
    if (!writableInSandbox(entry.guestPath)) throw new SandboxSpecError(`copyIn ${entry.guestPath}: the wasm backend copies rw trees only under ${HOME} or /tmp`);
    for (const item of items) {
      const path = item.relPath === '' ? entry.guestPath : `${entry.guestPath}/${item.relPath}`;
      if (item.kind === 'dir') await sandbox.mkdir(path, { recursive: true });
      else if (item.kind === 'file') await sandbox.writeFile(path, readFileSync(item.hostPath), { mode: item.mode, parents: true });
      else await sandbox.run(['ln', '-s', item.target ?? '', path]);
    }
  }
  return budget.bytes;
}

/** Copies `guestPath` out of the sandbox through the writer's checks (lstat: links are not followed). */
async function copyOutTree(sandbox: Sandbox, guestPath: string, writer: CopyOutWriter): Promise<void> {
  const rel = guestPath.replace(/^\/+/, '');
  let info;
  try {
    info = await sandbox.stat(guestPath, { follow: false });
  } catch {
    return;
  }
  if (info.kind === 'dir') {
    if (!writer.dir(rel)) return;
    for (const entry of await sandbox.readDir(guestPath)) await copyOutTree(sandbox, `${guestPath}/${entry.name}`, writer);
  } else if (info.kind === 'file') {
    const sink = writer.openFile(rel, info.size);
    if (sink === false) return;
    try {
      sink.write(await sandbox.readFile(guestPath));
    } finally {
      sink.close();
    }
  } else {
    writer.admit(rel, info.kind === 'symlink' ? 'symlink' : 'device', 0);
  }
}
