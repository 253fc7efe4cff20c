// The `qemu` backend: each run is an ephemeral microVM (QEMU -M microvm; KVM when usable,
// TCG otherwise) booted from the cached guest image (image.ts), with the run's plan and
// copy-in trees on a read-only input disk and its results coming back as a tar on an
// output disk that the host parses as hostile input (result.ts). The guest's code runs as
// an unprivileged user in a cgroup with the spec's memory and pids limits; the agent kills
// it at the time budget and the host kills the VM if the agent does not end in time.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GATE_LIMITS } from '../../../src/protocol/limits.js';
import type { ProxyDecision } from '../../egress-proxy/proxy.js';
import type { ExecuteOptions, SandboxClient, SandboxHealth, SandboxRun, SandboxSpec } from '../contract.js';
import { CopyOutWriter } from '../copy-out.js';
import { SandboxBackendUnavailable, SandboxImageUnavailable, SandboxRunFailed, SandboxSpecError } from '../errors.js';
import { createRunDir, defaultGatesDir, writeRunRecord, writeTrace } from '../run-dir.js';
import { qemuArgs, type Accel, type VmShape } from './command-line.js';
import { findImage, vmCacheDir, type ImagePaths } from './image.js';
import { writePlan } from './plan.js';
import { phasesFromResult, readGuestResult } from './result.js';
import { QmpClient } from './qmp.js';
import { ensureSnapshot } from './snapshot.js';

const MiB = 1024 * 1024;
/** Guest memory beyond the workload's limit: kernel, agent, the root overlay's writes. */
export const GUEST_OVERHEAD_MIB = 320;
/** Boot to `ready` under TCG on a loaded machine (measured 2–20 s); KVM needs far less. */
const BOOT_TIMEOUT_MS = 180_000;
/** After the budget: the agent's kill, copy-out and power-off. */
const FINISH_GRACE_MS = 60_000;
/** Fixed capacities (sparse files): a restored snapshot has seen these sizes at boot. */
export const INPUT_DISK_BYTES = GATE_LIMITS.copyInBytes + 256 * MiB;
export const OUTPUT_DISK_BYTES = GATE_LIMITS.copyOutBytes + 32 * MiB;

/** The egress proxy a scoped run goes through (the gateway's), started per run. */
export interface EgressProxy {
  port: number;
  /** The CA the proxy signs intercepted TLS with, trusted only inside this guest. */
  caPem: string | null;
  close(): Promise<void>;
}
export type EgressProxyFactory = (spec: SandboxSpec, onDecision?: (decision: ProxyDecision) => void) => Promise<EgressProxy>;

export interface QemuClientOptions {
  runsDir?: string;
  binary?: string;
  /** auto: KVM when /dev/kvm works, else TCG. */
  accel?: 'auto' | Accel;
  egressProxy?: EgressProxyFactory;
  /** Restore a snapshot of a booted idle guest instead of booting (network `none` runs); off by default. */
  warm?: boolean;
}

let kvmProbe: { usable: boolean; reason: string } | undefined;

/**
 * Whether KVM boots a guest here. /dev/kvm can exist and even initialize while guests hang
 * (measured here: nested PVM stops after "Probing EDD"), so the probe boots the image's
 * kernel without a root: under working KVM it panics and QEMU exits within a second. The
 * answer is kept per boot of the host (kvm-probe.json in the VM cache).
 */
export function probeKvm(binary: string, kernel: string | null): { usable: boolean; reason: string } {
  if (kvmProbe !== undefined) return kvmProbe;
  try {
    statSync('/dev/kvm');
  } catch {
    return (kvmProbe = { usable: false, reason: 'no /dev/kvm' });
  }
  if (kernel === null) return { usable: false, reason: 'not probed yet (no guest image)' };
  const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const cache = join(vmCacheDir(), 'kvm-probe.json');
  try {
    const saved = JSON.parse(readFileSync(cache, 'utf8')) as { bootId: string; kernel: string; usable: boolean; reason: string };
    if (saved.bootId === bootId && saved.kernel === kernel) return (kvmProbe = { usable: saved.usable, reason: saved.reason });
  } catch {
    // Not probed on this boot yet.
  }
  const result = spawnSync(binary, ['-M', 'microvm', '-accel', 'kvm', '-cpu', 'host', '-m', '128M', '-nodefaults', '-no-user-config', '-display', 'none', '-no-reboot', '-kernel', kernel, '-append', 'console=ttyS0 panic=-1', '-serial', 'stdio'], { encoding: 'utf8', timeout: 15_000, killSignal: 'SIGKILL' });
  const usable = result.error === undefined && /Kernel panic/.test(result.stdout ?? '');
  const reason = usable ? 'KVM boots guests' : result.error !== undefined ? '/dev/kvm is present but a guest under KVM did not boot within 15 s' : `/dev/kvm does not work: ${(result.stderr ?? '').trim().split('\n')[0] ?? `exit ${result.status}`}`;
  kvmProbe = { usable, reason };
  try {
    mkdirSync(vmCacheDir(), { recursive: true });
    writeFileSync(cache, JSON.stringify({ bootId, kernel, ...kvmProbe }) + '\n');
  } catch {
    // A read-only cache only costs the probe again.
  }
  return kvmProbe;
}

/** The host's TSC frequency in kHz (TCG's guest TSC runs at it). */
function hostTscKhz(): number {
  const mhz = /^cpu MHz\s*:\s*([\d.]+)/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
  return mhz === null ? 2_000_000 : Math.round(Number(mhz[1]) * 1000);
}

function qemuVersion(binary: string): string | null {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return result.status === 0 ? (/version ([\w.+~-]+)/.exec(result.stdout)?.[1] ?? result.stdout.split('\n')[0] ?? null) : null;
}

interface VmOutcome {
  exitCode: number | null;
  hostKilled: 'boot' | 'budget' | 'aborted' | null;
  console: string;
  stderr: string;
}

export class QemuSandboxClient implements SandboxClient {
  readonly backend = 'qemu' as const;
  private readonly binary: string;

  constructor(private readonly options: QemuClientOptions = {}) {
    this.binary = options.binary ?? 'qemu-system-x86_64';
  }

  private accel(): Accel {
    const wanted = this.options.accel ?? 'auto';
    if (wanted !== 'auto') return wanted;
    const image = findImage();
    return probeKvm(this.binary, 'missing' in image ? null : image.paths.kernel).usable ? 'kvm' : 'tcg';
  }

  async health(): Promise<SandboxHealth> {
    const version = qemuVersion(this.binary);
    const reasons: string[] = [];
    const details: Record<string, string> = {};
    if (version === null) reasons.push(`${this.binary} not found (Debian package qemu-system-x86)`);
    const image = findImage();
    if ('missing' in image) reasons.push(image.missing);
    else {
      details.image = image.paths.dir;
      details.kernel = image.manifest.kernelVersion;
    }
    if (version !== null) {
      const kvm = probeKvm(this.binary, 'missing' in image ? null : image.paths.kernel);
      details.accel = this.accel();
      if (!kvm.usable) details.kvm = `${kvm.reason}; TCG (software emulation) is used`;
    }
    details.egressProxy = this.options.egressProxy === undefined ? 'none configured: scoped runs are refused' : 'configured';
    return { backend: 'qemu', reachable: reasons.length === 0, version, reasons, details };
  }

  async execute(spec: SandboxSpec, options: ExecuteOptions = {}): Promise<SandboxRun> {
    const image = findImage();
    if ('missing' in image) throw new SandboxImageUnavailable('qemu', image.paths.key, image.missing);
    if (spec.network === 'scoped' && this.options.egressProxy === undefined) throw new SandboxSpecError("network 'scoped' needs an egress proxy; this qemu client has none");
    const runDir = createRunDir(options.runsDir ?? this.options.runsDir ?? join(defaultGatesDir(), 'sandbox-runs'));
    options.onStarted?.({ runId: runDir.runId });
    const startedAt = new Date();
    const proxy = spec.network === 'scoped' && this.options.egressProxy !== undefined ? await this.options.egressProxy(spec, options.onNetworkDecision) : null;
    const stage = join(runDir.dir, 'input');
    const disks = { input: join(runDir.dir, 'input.img'), output: join(runDir.dir, 'output.img') };
    try {
      const bytesIn = writePlan(stage, spec, proxy?.caPem ?? null);
      makeInputDisk(stage, disks.input, bytesIn);
      writeFileSync(disks.output, '');
      truncateSync(disks.output, OUTPUT_DISK_BYTES);
      const shape: VmShape = { accel: this.accel(), memoryMiB: spec.memoryLimitMiB + GUEST_OVERHEAD_MIB, proxyPort: proxy?.port ?? null, tscKhz: hostTscKhz() };
      const snapshot = await this.snapshotFor(image.paths, shape, spec);
      const started = performance.now();
      const outcome = await this.boot(image.paths, shape, disks, spec, runDir.runId, options, snapshot);
      const vmSeconds = (performance.now() - started) / 1000;
      const writer = new CopyOutWriter(runDir.copyOutRoot);
      const result = await readGuestResult(disks.output, spec, writer);
      if (result.problem !== null) writer.refusals.push(result.problem);
      if (outcome.hostKilled === 'boot') throw new SandboxRunFailed(`the VM did not boot within ${BOOT_TIMEOUT_MS / 1000} s: ${lastLines(outcome.console + outcome.stderr)}`);
      if (!result.meta.complete && outcome.hostKilled === null) {
        throw new SandboxRunFailed(`the guest ended without a result (QEMU exit ${outcome.exitCode}): ${lastLines(outcome.console + outcome.stderr)}`);
      }
      const phases = phasesFromResult(result, spec, runDir.logsDir);
      const timedOut = result.meta.timedOut || outcome.hostKilled !== null;
      const killedByOom = result.meta.oom;
      const failed = phases.find((phase) => phase.exitCode !== 0);
      const exitCode = timedOut ? 124 : killedByOom ? 137 : (failed?.exitCode ?? 0);
      if (spec.enableTrace) writeTrace(runDir.tracePath, result.trace);
      const run: SandboxRun = {
        runId: runDir.runId, spec, backend: 'qemu', startedAt: startedAt.toISOString(), endedAt: new Date().toISOString(),
        exitCode, durationMs: Math.round(performance.now() - started), vmSeconds, phases, logsDir: runDir.logsDir,
        tracePath: spec.enableTrace ? runDir.tracePath : null, copyOutRoot: runDir.copyOutRoot, timedOut, killedByOom,
        bytesIn, bytesOut: writer.bytesWritten, warmStart: snapshot !== null, copyOutRefusals: writer.refusals,
      };
      writeFileSync(join(runDir.dir, 'console.log'), outcome.console.slice(-256 * 1024));
      writeRunRecord(runDir.dir, run);
      return run;
    } finally {
      await proxy?.close();
      rmSync(stage, { recursive: true, force: true });
      rmSync(disks.input, { force: true });
      rmSync(disks.output, { force: true });
    }
  }

  /** The warm snapshot for this shape (made on first use), or null: boot cold. */
  private async snapshotFor(image: ImagePaths, shape: VmShape, spec: SandboxSpec): Promise<string | null> {
    if (this.options.warm !== true || spec.network !== 'none') return null;
    try {
      return await ensureSnapshot(this.binary, image, shape, { inputBytes: INPUT_DISK_BYTES, outputBytes: OUTPUT_DISK_BYTES }, BOOT_TIMEOUT_MS);
    } catch (error) {
      process.emitWarning(`qemu: no warm snapshot, booting cold: ${(error as Error).message}`);
      return null;
    }
  }

  /**
   * Boots the VM (or restores the warm snapshot), answers `ready` with `go` (a restored
   * guest is already waiting: `go` follows as soon as it runs), follows the phases, waits
   * for power-off.
   */
  private boot(image: ImagePaths, shape: VmShape, disks: { input: string; output: string }, spec: SandboxSpec, runId: string, options: ExecuteOptions, snapshot: string | null): Promise<VmOutcome> {
    return new Promise((resolve, reject) => {
      // A short path: a Unix socket's path must fit in 108 bytes.
      const qmpDir = snapshot === null ? undefined : mkdtempSync(join(tmpdir(), 'airlock-qmp-'));
      const qmpSocket = qmpDir === undefined ? undefined : join(qmpDir, 'qmp.sock');
      const extra = snapshot === null ? {} : { incoming: `exec:cat ${snapshot}`, qmpSocket };
      const child = spawn(this.binary, qemuArgs(image, shape, disks, extra), { stdio: ['pipe', 'pipe', 'pipe'] });
      let consoleText = '';
      let stderr = '';
      let pending = '';
      let hostKilled: VmOutcome['hostKilled'] = null;
      const kill = (why: NonNullable<VmOutcome['hostKilled']>): void => {
        hostKilled ??= why;
        child.kill('SIGKILL');
      };
      let timer = setTimeout(() => kill('boot'), BOOT_TIMEOUT_MS);
      const go = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => kill('budget'), spec.timeBudgetSeconds * 1000 + FINISH_GRACE_MS);
        child.stdin.write(`go ${Math.floor(Date.now() / 1000)}\n`);
      };
      if (qmpSocket !== undefined) {
        void waitRunning(qmpSocket).then(go, () => kill('boot'));
      }
      const onAbort = (): void => kill('aborted');
      options.signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.on('data', (chunk: Buffer) => {
        const text = chunk.toString('latin1');
        if (consoleText.length < 4 * MiB) consoleText += text;
        pending += text;
        const lines = pending.split(/\r?\n/);
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const match = /AIRLOCK (.*)$/.exec(line);
          if (match === null) continue;
          const message = match[1] ?? '';
          if (message === 'ready') {
            go();
          } else if (message.startsWith('phase ')) {
            options.onProgress?.({ runId, message: message.slice(0, 200) });
          }
        }
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new SandboxBackendUnavailable('qemu', [`cannot start ${this.binary}: ${error.message}`]));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (qmpDir !== undefined) rmSync(qmpDir, { recursive: true, force: true });
        options.signal?.removeEventListener('abort', onAbort);
        resolve({ exitCode: code, hostKilled, console: consoleText, stderr });
      });
    });
  }
}

/** Waits until a restored VM runs (the migration stream is loaded and it resumed). */
async function waitRunning(socket: string): Promise<void> {
  const qmp = await QmpClient.connect(socket, BOOT_TIMEOUT_MS);
  try {
    for (let waited = 0; waited < BOOT_TIMEOUT_MS; waited += 20) {
      const status = ((await qmp.execute('query-status')) as { status?: string }).status;
      if (status === 'running') return;
      // The snapshot was taken of a stopped guest, so it arrives paused: resume it.
      if (status === 'paused' || status === 'postmigrate') await qmp.execute('cont');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the restored VM did not start running');
  } finally {
    qmp.close();
  }
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join(' | ').slice(0, 800);
}

/** The input disk: an ext4 image of the plan folder, in a file of the fixed capacity. */
export function makeInputDisk(stage: string, path: string, bytesIn: number): void {
  const size = Math.ceil((bytesIn * 1.25 + 32 * MiB) / MiB);
  execFileSync('mkfs.ext4', ['-q', '-F', '-O', '^has_journal', '-E', 'root_owner=0:0', '-d', stage, path, `${size}M`], { stdio: ['ignore', 'ignore', 'pipe'] });
  truncateSync(path, Math.max(INPUT_DISK_BYTES, size * MiB));
}

