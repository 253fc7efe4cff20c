// Drives one Firecracker process through a launch plan (launch.ts): spawn its argv (the
// jailer's or Firecracker's), wait for the API socket, send the requests of the mode —
// cold: configure and start, answer the agent's `ready` with `go`; load: restore the warm
// snapshot, patch in the run's disks, resume, send `go` (a restored guest is already
// waiting); create: boot cold, wait for `ready`, pause and write the snapshot, stop — then
// follow the serial console until the VM powers off. The process and the API are reached
// through a FirecrackerHost, so the sequences are tested with a scripted one where there is
// no KVM (drive.test.ts).

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { SandboxSpec } from '../contract.js';
import { callApi } from './api-client.js';
import type { LaunchPlan } from './launch.js';
import { bootRequests, coldBoot, snapshotCreate, snapshotLoad, type ApiRequest } from './requests.js';

export interface VmProcess {
  stdout: Readable;
  stderr: Readable;
  stdin: Writable;
  kill(signal?: NodeJS.Signals): boolean;
  once(event: 'close', listener: (code: number | null) => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
}

export interface FirecrackerHost {
  spawn(argv: string[]): VmProcess;
  callApi(socket: string, call: ApiRequest): Promise<unknown>;
  waitForSocket(socket: string, timeoutMs: number): Promise<void>;
}

export const REAL_HOST: FirecrackerHost = {
  spawn: (argv) => spawn(argv[0] as string, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] }),
  callApi: (socket, call) => callApi(socket, call),
  async waitForSocket(socket, timeoutMs) {
    for (let waited = 0; !existsSync(socket); waited += 50) {
      if (waited >= timeoutMs) throw new Error(`no API socket at ${socket} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  },
};

export type DriveMode = 'cold' | 'load' | 'create';

export interface DriveOptions {
  bootTimeoutMs: number;
  /** After `go`: the spec's budget plus the agent's grace; the host kills the VM past it. */
  runTimeoutMs: number;
  onPhase?: (message: string) => void;
  signal?: AbortSignal;
  /** For `go <time>`: the guest's clock (seconds since the epoch). */
  now?: () => number;
}

export interface DriveOutcome {
  exitCode: number | null;
  hostKilled: 'boot' | 'budget' | 'aborted' | null;
  console: string;
  stderr: string;
  /** The API requests sent, in order (the run's record of what it asked Firecracker). */
  requests: ApiRequest[];
}

const CONSOLE_CAP = 4 * 1024 * 1024;

export async function driveVm(host: FirecrackerHost, plan: LaunchPlan, mode: DriveMode, spec: SandboxSpec | null, options: DriveOptions): Promise<DriveOutcome> {
  if (mode === 'load' && plan.snapshot === null) throw new Error('firecracker: a warm start needs a snapshot in its plan');
  if (mode === 'create' && plan.snapshot === null) throw new Error('firecracker: making a snapshot needs its paths in the plan');
  const child = host.spawn(plan.argv);
  // `go` may be written as the VM dies: a broken pipe then is the exit's news, not an error.
  child.stdin.on('error', () => undefined);
  const requests: ApiRequest[] = [];
  let consoleText = '';
  let stderr = '';
  let pending = '';
  let hostKilled: DriveOutcome['hostKilled'] = null;
  let sentGo = false;
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const closed = new Promise<number | null>((resolve) => {
    child.once('close', resolve);
    child.once('error', (error) => {
      stderr += `cannot start ${plan.argv[0] ?? ''}: ${error.message}\n`;
      resolve(null);
    });
  });
  let ended = false;
  void closed.then(() => (ended = true));
  const kill = (why: NonNullable<DriveOutcome['hostKilled']>): void => {
    hostKilled ??= why;
    child.kill('SIGKILL');
  };
  let timer = setTimeout(() => kill('boot'), options.bootTimeoutMs);
  const go = (): void => {
    if (sentGo) return;
    sentGo = true;
    clearTimeout(timer);
    timer = setTimeout(() => kill('budget'), options.runTimeoutMs);
    child.stdin.write(`go ${Math.floor((options.now ?? Date.now)() / 1000)}\n`);
  };
  const onAbort = (): void => kill('aborted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  child.stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString('latin1');
    if (consoleText.length < CONSOLE_CAP) consoleText += text;
    pending += text;
    const lines = pending.split(/\r?\n/);
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const message = /AIRLOCK (.*)$/.exec(line)?.[1];
      if (message === undefined) continue;
      if (message === 'ready') {
        onReady();
        if (mode === 'cold') go();
      } else if (message.startsWith('phase ')) options.onPhase?.(message.slice(0, 200));
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
  });
  const send = async (calls: ApiRequest[]): Promise<void> => {
    for (const call of calls) {
      requests.push(call);
      await host.callApi(plan.socket, call);
    }
  };
  try {
    await Promise.race([host.waitForSocket(plan.socket, options.bootTimeoutMs), closed.then(() => Promise.reject(new Error('firecracker exited before its API socket appeared')))]);
    const snapshot = plan.snapshot;
    if (mode === 'cold') await send(coldBoot(plan.vm, spec ?? refuseNoSpec()));
    else if (mode === 'load' && snapshot !== null) {
      await send(snapshotLoad(snapshot.api.state, snapshot.api.memory, plan.vm));
      go();
    } else if (mode === 'create' && snapshot !== null) {
      await send(bootRequests(plan.vm));
      await Promise.race([ready, closed.then(() => Promise.reject(new Error('the snapshot guest exited before it was ready')))]);
      await send(snapshotCreate(snapshot.api.state, snapshot.api.memory));
      // The snapshot is written: this VM has served its purpose.
      child.kill('SIGKILL');
    }
  } catch (error) {
    if (!ended) child.kill('SIGKILL');
    await closed;
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    throw Object.assign(error instanceof Error ? error : new Error(String(error)), { console: consoleText, stderr });
  }
  const exitCode = await closed;
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);
  return { exitCode, hostKilled, console: consoleText, stderr, requests };
}

function refuseNoSpec(): never {
  throw new Error('firecracker: a cold run needs its spec');
}
