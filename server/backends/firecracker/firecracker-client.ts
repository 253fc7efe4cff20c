// The `firecracker` backend: the qemu backend's guest image booted by Firecracker where
// /dev/kvm works and a firecracker binary is configured ($AIRLOCK_FIRECRACKER, or
// `firecracker` on PATH). Runs are jailed when a jailer binary is present and a uid/gid to
// drop to is configured (launch.ts), and start warm from a snapshot of a booted idle guest,
// written on a shape's first run (snapshot.ts; `warm: false` boots every run cold). It
// drives Firecracker through its API socket (drive.ts, requests.ts) and speaks the same
// serial protocol with the same guest agent as the qemu backend, reading results the same way.

import { spawnSync } from 'node:child_process';
import { chownSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { ExecuteOptions, SandboxClient, SandboxHealth, SandboxRun, SandboxSpec } from '../contract.js';
import { CopyOutWriter } from '../copy-out.js';
import { SandboxBackendUnavailable, SandboxImageUnavailable, SandboxRunFailed, SandboxSpecError } from '../errors.js';
import { createRunDir, defaultGatesDir, writeRunRecord, writeTrace } from '../run-dir.js';
import { findImage, type ImagePaths } from '../qemu/image.js';
import { writePlan } from '../qemu/plan.js';
import { GUEST_OVERHEAD_MIB, INPUT_DISK_BYTES, OUTPUT_DISK_BYTES, makeInputDisk, probeKvm } from '../qemu/qemu-client.js';
import { phasesFromResult, readGuestResult } from '../qemu/result.js';
import { REAL_HOST, driveVm, type DriveMode, type FirecrackerHost } from './drive.js';
import { planLaunch, resolveJailer, type JailerConfig, type LaunchPlan, type SnapshotFiles } from './launch.js';
import { SCOPED_REFUSAL } from './requests.js';
import { partialFiles, snapshotFiles } from './snapshot.js';

const BOOT_TIMEOUT_MS = 60_000;
/** After the budget: the agent's kill, copy-out and power-off. */
const FINISH_GRACE_MS = 60_000;

export interface FirecrackerClientOptions {
  runsDir?: string;
  binary?: string;
  /** The jailer binary (default $AIRLOCK_FIRECRACKER_JAILER, else `jailer` beside firecracker). */
  jailerBinary?: string;
  /** The uid/gid the jailer drops to and its chroot base (default: the AIRLOCK_FIRECRACKER_* variables). */
  jailer?: { uid?: number; gid?: number; chrootBase?: string };
  /** Start from a snapshot of a booted idle guest (made on first use); default true. */
  warm?: boolean;
  /** The process and API seam (tests script it). */
  host?: FirecrackerHost;
}

/** The binary and the first line of its --version, or null when it does not run. */
function findBinary(candidate: string): { path: string; version: string | null } | null {
  const result = spawnSync(candidate, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return result.status === 0 ? { path: candidate, version: result.stdout.split('\n')[0] ?? null } : null;
}

interface Probe {
  binary: string | null;
  version: string | null;
  jailer: ReturnType<typeof resolveJailer>;
  reasons: string[];
}

export class FirecrackerSandboxClient implements SandboxClient {
  readonly backend = 'firecracker' as const;
  private readonly host: FirecrackerHost;

  constructor(private readonly options: FirecrackerClientOptions = {}) {
    this.host = options.host ?? REAL_HOST;
  }

  private probe(): Probe {
    const reasons: string[] = [];
    const found = findBinary(this.options.binary ?? process.env.AIRLOCK_FIRECRACKER ?? 'firecracker');
    const binary = found?.path ?? null;
    const version = found?.version ?? null;
    if (binary === null) reasons.push('no firecracker binary (set AIRLOCK_FIRECRACKER or put firecracker on PATH)');
    const jailerCandidate = this.options.jailerBinary ?? process.env.AIRLOCK_FIRECRACKER_JAILER ?? (binary?.includes('/') === true ? join(dirname(binary), 'jailer') : 'jailer');
    const configured = this.options.jailer ?? {
      ...(process.env.AIRLOCK_FIRECRACKER_UID === undefined ? {} : { uid: process.env.AIRLOCK_FIRECRACKER_UID }),
      ...(process.env.AIRLOCK_FIRECRACKER_GID === undefined ? {} : { gid: process.env.AIRLOCK_FIRECRACKER_GID }),
      ...(process.env.AIRLOCK_FIRECRACKER_CHROOT === undefined ? {} : { chrootBase: process.env.AIRLOCK_FIRECRACKER_CHROOT }),
    };
    const jailer = resolveJailer({ jailerBinary: binary === null ? null : (findBinary(jailerCandidate)?.path ?? null), firecracker: binary, configured, isRoot: process.getuid?.() === 0 });
    if (jailer.problem !== null) reasons.push(jailer.problem);
    const image = findImage();
    if ('missing' in image) reasons.push(image.missing);
    if (!existsSync('/dev/kvm')) reasons.push('no /dev/kvm: Firecracker needs KVM');
    else if (!('missing' in image)) {
      const kvm = probeKvm('qemu-system-x86_64', image.paths.kernel);
      if (!kvm.usable) reasons.push(kvm.reason);
    }
    return { binary, version, jailer, reasons };
  }

  async health(): Promise<SandboxHealth> {
    const probe = this.probe();
    const details: Record<string, string> = { jailer: probe.jailer.status };
    details.warmStart = this.options.warm === false ? 'off: every run boots cold' : 'from a snapshot of a booted idle guest, written on the first run of each memory size';
    return { backend: 'firecracker', reachable: probe.reasons.length === 0, version: probe.version, reasons: probe.reasons, details };
  }

  async execute(spec: SandboxSpec, options: ExecuteOptions = {}): Promise<SandboxRun> {
    const image = findImage();
    if ('missing' in image) throw new SandboxImageUnavailable('firecracker', image.paths.key, image.missing);
    const probe = this.probe();
    if (probe.reasons.length > 0 || probe.binary === null) throw new SandboxBackendUnavailable('firecracker', probe.reasons);
    return executeOn({
      binary: probe.binary, version: probe.version, jailer: probe.jailer.config, image: image.paths, warm: this.options.warm !== false, host: this.host,
      runsDir: options.runsDir ?? this.options.runsDir ?? join(defaultGatesDir(), 'sandbox-runs'),
    }, spec, options);
  }
}

/** What a run needs once the probe has found everything (the seam execute.test.ts drives). */
export interface FirecrackerRunContext {
  binary: string;
  version: string | null;
  jailer: JailerConfig | null;
  image: ImagePaths;
  warm: boolean;
  host: FirecrackerHost;
  runsDir: string;
}

/** One run: the warm snapshot (made on first use) or a cold boot, jailed when configured. */
export async function executeOn(context: FirecrackerRunContext, spec: SandboxSpec, options: ExecuteOptions = {}): Promise<SandboxRun> {
  if (spec.network === 'scoped') throw new SandboxSpecError(SCOPED_REFUSAL);
  const { jailer } = context;
  const runDir = createRunDir(context.runsDir);
  options.onStarted?.({ runId: runDir.runId });
  const memoryMiB = spec.memoryLimitMiB + GUEST_OVERHEAD_MIB;
  const startedAt = new Date();
  const warm = context.warm ? await ensureSnapshot(context, memoryMiB) : null;
  const socketDir = mkdtempSync(join(tmpdir(), 'airlock-fc-'));
  const plan = planLaunch({ firecracker: context.binary, jailer, id: runDir.runId, image: context.image, runDir: runDir.dir, socketDir, memoryMiB, snapshot: warm === null ? null : { mode: 'load', files: warm } });
  const stage = join(runDir.dir, 'input');
  const started = performance.now();
  try {
    prepareJail(plan);
    const bytesIn = writePlan(stage, spec, null);
    makeInputDisk(stage, plan.disks.input, bytesIn);
    makeSparse(plan.disks.output, OUTPUT_DISK_BYTES);
    if (jailer !== null) for (const path of plan.chown) chownSync(path, jailer.uid, jailer.gid);
    const mode: DriveMode = warm === null ? 'cold' : 'load';
    const outcome = await driveVm(context.host, plan, mode, spec, {
      bootTimeoutMs: BOOT_TIMEOUT_MS, runTimeoutMs: spec.timeBudgetSeconds * 1000 + FINISH_GRACE_MS,
      onPhase: (message) => options.onProgress?.({ runId: runDir.runId, message }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    }).catch((error: Error & { console?: string }) => {
      throw new SandboxRunFailed(`firecracker: ${error.message}: ${lastLines(error.console ?? '')}`);
    });
    const vmSeconds = (performance.now() - started) / 1000;
    const writer = new CopyOutWriter(runDir.copyOutRoot);
    const result = await readGuestResult(plan.disks.output, spec, writer);
    if (result.problem !== null) writer.refusals.push(result.problem);
    if (outcome.hostKilled === 'boot') throw new SandboxRunFailed(`the VM did not boot within ${BOOT_TIMEOUT_MS / 1000} s: ${lastLines(outcome.console + outcome.stderr)}`);
    if (!result.meta.complete && outcome.hostKilled === null) throw new SandboxRunFailed(`the guest ended without a result (firecracker exit ${outcome.exitCode}): ${lastLines(outcome.console + outcome.stderr)}`);
    const phases = phasesFromResult(result, spec, runDir.logsDir);
    if (spec.enableTrace) writeTrace(runDir.tracePath, result.trace);
    const timedOut = result.meta.timedOut || outcome.hostKilled !== null;
    const failed = phases.find((phase) => phase.exitCode !== 0);
    const run: SandboxRun = {
      runId: runDir.runId, spec, backend: 'firecracker', startedAt: startedAt.toISOString(), endedAt: new Date().toISOString(),
      exitCode: timedOut ? 124 : result.meta.oom ? 137 : (failed?.exitCode ?? 0), durationMs: Math.round(performance.now() - started), vmSeconds,
      phases, logsDir: runDir.logsDir, tracePath: spec.enableTrace ? runDir.tracePath : null, copyOutRoot: runDir.copyOutRoot,
      timedOut, killedByOom: result.meta.oom, bytesIn, bytesOut: writer.bytesWritten, warmStart: warm !== null, copyOutRefusals: writer.refusals,
    };
    writeFileSync(join(runDir.dir, 'console.log'), outcome.console.slice(-256 * 1024));
    // What was asked of Firecracker, for an operator reading a run that went wrong.
    writeFileSync(join(runDir.dir, 'firecracker.json'), JSON.stringify({ argv: plan.argv, requests: outcome.requests }, null, 2) + '\n');
    writeRunRecord(runDir.dir, run);
    return run;
  } finally {
    rmSync(stage, { recursive: true, force: true });
    if (plan.jailDir !== null) rmSync(plan.jailDir, { recursive: true, force: true });
    else {
      rmSync(plan.disks.input, { force: true });
      rmSync(plan.disks.output, { force: true });
    }
    rmSync(socketDir, { recursive: true, force: true });
  }
}

/**
 * The warm snapshot for this shape: the existing one, or one written now by booting an
 * idle guest (its first use). A snapshot that cannot be made is a warning: the run boots cold.
 */
async function ensureSnapshot(context: FirecrackerRunContext, memoryMiB: number): Promise<SnapshotFiles | null> {
  const { jailer } = context;
  const files = snapshotFiles(context.image.dir, { memoryMiB, jailed: jailer !== null, version: context.version });
  const ready = existsSync(files.state) && existsSync(files.memory) && (jailer !== null || (existsSync(files.input) && existsSync(files.output)));
  if (ready) return files;
  const socketDir = mkdtempSync(join(tmpdir(), 'airlock-fc-snapshot-'));
  const id = uuidv7();
  // Written under this VM's own names, then renamed: two first runs at once cannot mix their files.
  const target = { ...files, ...partialFiles(files, id) };
  const plan = planLaunch({ firecracker: context.binary, jailer, id, image: context.image, runDir: socketDir, socketDir, memoryMiB, snapshot: { mode: 'create', files: target } });
  try {
    prepareJail(plan);
    makeSparse(plan.disks.input, INPUT_DISK_BYTES);
    makeSparse(plan.disks.output, OUTPUT_DISK_BYTES);
    if (jailer !== null) for (const path of plan.chown) chownSync(path, jailer.uid, jailer.gid);
    await driveVm(context.host, plan, 'create', null, { bootTimeoutMs: BOOT_TIMEOUT_MS, runTimeoutMs: BOOT_TIMEOUT_MS });
    if (plan.snapshot === null) return null;
    moveInto(plan.snapshot.host.state, files.state);
    moveInto(plan.snapshot.host.memory, files.memory);
    return files;
  } catch (error) {
    process.emitWarning(`firecracker: no warm snapshot, booting cold: ${(error as Error).message}`);
    return null;
  } finally {
    rmSync(target.state, { force: true });
    rmSync(target.memory, { force: true });
    if (plan.jailDir !== null) rmSync(plan.jailDir, { recursive: true, force: true });
    rmSync(socketDir, { recursive: true, force: true });
  }
}

/** A sparse file of a fixed capacity (a restored snapshot has seen these sizes at boot). */
function makeSparse(path: string, bytes: number): void {
  if (existsSync(path)) return;
  writeFileSync(path, '');
  truncateSync(path, bytes);
}

/** The jail's root with the image (and snapshot) in it: hard links, or copies across filesystems. */
function prepareJail(plan: LaunchPlan): void {
  if (plan.jailDir === null) return;
  mkdirSync(join(plan.jailDir, 'root'), { recursive: true });
  for (const [from, to] of plan.links) {
    try {
      linkSync(from, to);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      copyFileSync(from, to);
    }
  }
}

function moveInto(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    copyFileSync(from, `${to}.copy-${process.pid}`);
    renameSync(`${to}.copy-${process.pid}`, to);
  }
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join(' | ').slice(0, 800);
}
