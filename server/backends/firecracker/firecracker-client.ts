// The `firecracker` backend: the qemu backend's guest image booted by Firecracker where
// /dev/kvm works and a firecracker binary is configured ($AIRLOCK_FIRECRACKER, or
// `firecracker` on PATH; `jailer` beside it is used when present). It drives Firecracker
// through its API socket (api-client.ts, requests.ts) and speaks the same serial protocol
// with the same guest agent as the qemu backend, reading results the same way.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecuteOptions, SandboxClient, SandboxHealth, SandboxRun, SandboxSpec } from '../contract.js';
import { CopyOutWriter } from '../copy-out.js';
import { SandboxBackendUnavailable, SandboxRunFailed } from '../errors.js';
import { createRunDir, defaultGatesDir, writeRunRecord, writeTrace } from '../run-dir.js';
import { findImage } from '../qemu/image.js';
import { writePlan } from '../qemu/plan.js';
import { GUEST_OVERHEAD_MIB, OUTPUT_DISK_BYTES, makeInputDisk, probeKvm } from '../qemu/qemu-client.js';
import { phasesFromResult, readGuestResult } from '../qemu/result.js';
import { callApi } from './api-client.js';
import { coldBoot, type FirecrackerVm } from './requests.js';

export interface FirecrackerClientOptions {
  runsDir?: string;
  binary?: string;
}

function findBinary(explicit: string | undefined): string | null {
  const candidate = explicit ?? process.env.AIRLOCK_FIRECRACKER ?? 'firecracker';
  const result = spawnSync(candidate, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return result.status === 0 ? candidate : null;
}

export class FirecrackerSandboxClient implements SandboxClient {
  readonly backend = 'firecracker' as const;

  constructor(private readonly options: FirecrackerClientOptions = {}) {}

  async health(): Promise<SandboxHealth> {
    const reasons: string[] = [];
    const details: Record<string, string> = {};
    const binary = findBinary(this.options.binary);
    let version: string | null = null;
    if (binary === null) reasons.push('no firecracker binary (set AIRLOCK_FIRECRACKER or put firecracker on PATH)');
    else version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? null;
    const image = findImage();
    if ('missing' in image) reasons.push(image.missing);
    if (!existsSync('/dev/kvm')) reasons.push('no /dev/kvm: Firecracker needs KVM');
    else if (!('missing' in image)) {
      const kvm = probeKvm('qemu-system-x86_64', image.paths.kernel);
      if (!kvm.usable) reasons.push(kvm.reason);
    }
    details.jailer = binary !== null && findBinary('jailer') !== null ? 'present' : 'absent';
    return { backend: 'firecracker', reachable: reasons.length === 0, version, reasons, details };
  }

  async execute(spec: SandboxSpec, options: ExecuteOptions = {}): Promise<SandboxRun> {
    const health = await this.health();
    if (!health.reachable) throw new SandboxBackendUnavailable('firecracker', health.reasons);
    const image = findImage();
    if ('missing' in image) throw new SandboxBackendUnavailable('firecracker', [image.missing]);
    const binary = findBinary(this.options.binary) as string;
    const runDir = createRunDir(options.runsDir ?? this.options.runsDir ?? join(defaultGatesDir(), 'sandbox-runs'));
    options.onStarted?.({ runId: runDir.runId });
    const stage = join(runDir.dir, 'input');
    const vm: FirecrackerVm = {
      image: image.paths, inputDisk: join(runDir.dir, 'input.img'), outputDisk: join(runDir.dir, 'output.img'),
      memoryMiB: spec.memoryLimitMiB + GUEST_OVERHEAD_MIB, tscKhz: 0,
    };
    const socket = join(runDir.dir, 'firecracker.socket');
    const startedAt = new Date();
    const started = performance.now();
    try {
      const bytesIn = writePlan(stage, spec, null);
      makeInputDisk(stage, vm.inputDisk, bytesIn);
      writeFileSync(vm.outputDisk, '');
      truncateSync(vm.outputDisk, OUTPUT_DISK_BYTES);
      const child = spawn(binary, ['--api-sock', socket], { stdio: ['pipe', 'pipe', 'pipe'] });
      let consoleText = '';
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const budget = setTimeout(() => child.kill('SIGKILL'), spec.timeBudgetSeconds * 1000 + 120_000);
      child.stdout.on('data', (chunk: Buffer) => {
        const text = chunk.toString('latin1');
        consoleText += text;
        if (/AIRLOCK ready/.test(text)) child.stdin.write(`go ${Math.floor(Date.now() / 1000)}\n`);
        for (const match of text.matchAll(/AIRLOCK (phase [^\r\n]*)/g)) options.onProgress?.({ runId: runDir.runId, message: match[1] ?? '' });
      });
      for (let waited = 0; !existsSync(socket) && waited < 5000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      for (const call of coldBoot(vm, spec)) await callApi(socket, call);
      await exited;
      clearTimeout(budget);
      const vmSeconds = (performance.now() - started) / 1000;
      const writer = new CopyOutWriter(runDir.copyOutRoot);
      const result = await readGuestResult(vm.outputDisk, spec, writer);
      if (!result.meta.complete && !result.meta.timedOut) throw new SandboxRunFailed(`the guest ended without a result: ${consoleText.trim().split('\n').slice(-3).join(' | ')}`);
      const phases = phasesFromResult(result, spec, runDir.logsDir);
      if (spec.enableTrace) writeTrace(runDir.tracePath, result.trace);
      const failed = phases.find((phase) => phase.exitCode !== 0);
      const run: SandboxRun = {
        runId: runDir.runId, spec, backend: 'firecracker', startedAt: startedAt.toISOString(), endedAt: new Date().toISOString(),
        exitCode: result.meta.timedOut ? 124 : result.meta.oom ? 137 : (failed?.exitCode ?? 0), durationMs: Math.round(performance.now() - started), vmSeconds,
        phases, logsDir: runDir.logsDir, tracePath: spec.enableTrace ? runDir.tracePath : null, copyOutRoot: runDir.copyOutRoot,
        timedOut: result.meta.timedOut, killedByOom: result.meta.oom, bytesIn, bytesOut: writer.bytesWritten, warmStart: false, copyOutRefusals: writer.refusals,
      };
      writeRunRecord(runDir.dir, run);
      return run;
    } finally {
      rmSync(stage, { recursive: true, force: true });
      rmSync(vm.inputDisk, { force: true });
      rmSync(vm.outputDisk, { force: true });
      rmSync(socket, { force: true });
    }
  }
}

