// The firecracker backend's execute path where there is no KVM: a scripted Firecracker
// (FirecrackerHost) answers the API as Firecracker's specification says and plays the
// guest agent (ready, go, a result archive on the output disk). The argv and every request
// of each run are checked against golden sequences (golden/sequence-*.json, paths made
// relative to the test's scratch directory): a cold run, a first warm run that writes the
// snapshot and then restores it, a later run that only restores it, and the same under
// the jailer (image and snapshot linked into the jail, disks made and owned there).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImagePaths } from '../qemu/image.js';
import { parseSandboxSpec } from '../spec.js';
import { resultEntries, tarOf, writeOntoDisk } from '../testing/archive.js';
import type { FirecrackerHost, VmProcess } from './drive.js';
import { executeOn, type FirecrackerRunContext } from './firecracker-client.js';
import type { JailerConfig } from './launch.js';
import type { ApiRequest } from './requests.js';

interface Spawned {
  argv: string[];
  /** Which of the jail's files existed when it started (jailed runs). */
  jailFiles: string[];
  requests: ApiRequest[];
}

/** Firecracker as its API specification describes it, with the guest agent inside. */
class ScriptedFirecracker implements FirecrackerHost {
  readonly spawned: Spawned[] = [];
  failSnapshotCreate = false;
  private readonly vms = new Map<string, { process: ScriptedProcess; record: Spawned; root: string }>();

  spawn(argv: string[]): VmProcess {
    const jailed = argv.includes('--chroot-base-dir');
    const value = (flag: string): string => argv[argv.indexOf(flag) + 1] ?? '';
    // Jailed, Firecracker's paths are relative to its chroot: <base>/firecracker/<id>/root.
    const root = jailed ? join(value('--chroot-base-dir'), 'firecracker', value('--id'), 'root') : '/';
    const socket = jailed ? join(root, value('--api-sock')) : value('--api-sock');
    const record: Spawned = { argv, jailFiles: jailed ? ['vmlinuz', 'initrd.cpio', 'root.img', 'input.img', 'output.img', 'warm.snap', 'warm.mem'].filter((name) => existsSync(join(root, name))) : [], requests: [] };
    this.spawned.push(record);
    const process = new ScriptedProcess((line) => this.onSerial(socket, line));
    this.vms.set(socket, { process, record, root });
    return process;
  }

  async waitForSocket(): Promise<void> {}

  async callApi(socket: string, call: ApiRequest): Promise<unknown> {
    const vm = this.vms.get(socket);
    if (vm === undefined) throw new Error(`no Firecracker listens on ${socket}`);
    vm.record.requests.push(call);
    const body = call.body ?? {};
    const onHost = (path: unknown): string => join(vm.root, String(path));
    if (call.path === '/actions' && body.action_type === 'InstanceStart') setImmediate(() => vm.process.print('AIRLOCK ready'));
    if (call.path === '/drives/output') vm.process.outputDisk = onHost(body.path_on_host);
    if (call.path === '/snapshot/create') {
      if (this.failSnapshotCreate) throw new Error('firecracker /snapshot/create: 400 scripted failure');
      writeFileSync(onHost(body.snapshot_path), 'state');
      writeFileSync(onHost(body.mem_file_path), 'memory');
    }
    if (call.path === '/snapshot/load') {
      const memory = (body.mem_backend as { backend_path: string }).backend_path;
      for (const path of [body.snapshot_path, memory]) if (!existsSync(onHost(path))) throw new Error(`firecracker /snapshot/load: 400 no file ${String(path)}`);
    }
    return undefined;
  }

  /** The agent: on `go`, its result archive on the output disk, then power-off. */
  private onSerial(socket: string, line: string): void {
    const vm = this.vms.get(socket);
    if (vm === undefined || !line.startsWith('go ')) return;
    const disk = vm.process.outputDisk;
    void tarOf(resultEntries([{ exitCode: 0, stdout: 'hello from firecracker\n' }])).then((archive) => {
      if (disk !== null) writeOntoDisk(disk, archive);
      vm.process.print('AIRLOCK phase 1 exited 0');
      vm.process.exit(0);
    });
  }
}

class ScriptedProcess implements VmProcess {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly stdin: Writable;
  outputDisk: string | null = null;
  private closed = false;
  private readonly closeListeners: Array<(code: number | null) => void> = [];

  constructor(onLine: (line: string) => void) {
    this.stdin = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString().split('\n')) if (line !== '') onLine(line);
        callback();
      },
    });
  }

  print(line: string): void {
    this.stdout.write(`${line}\r\n`);
  }

  exit(code: number | null): void {
    if (this.closed) return;
    this.closed = true;
    setImmediate(() => {
      for (const listener of this.closeListeners) listener(code);
    });
  }

  kill(): boolean {
    this.exit(null);
    return true;
  }

  once(event: 'close' | 'error', listener: ((code: number | null) => void) | ((error: Error) => void)): this {
    if (event === 'close') this.closeListeners.push(listener as (code: number | null) => void);
    return this;
  }
}

const spec = parseSandboxSpec({ label: 'fc', memoryLimitMiB: 256, timeBudgetSeconds: 30, phases: [{ name: 'hello', argv: ['echo', 'hello'] }] });

describe('firecracker execute (scripted Firecracker, no KVM)', () => {
  let root: string;
  let image: ImagePaths;
  let host: ScriptedFirecracker;
  const context = (overrides: Partial<FirecrackerRunContext> = {}): FirecrackerRunContext => ({
    binary: '/opt/fc/firecracker', version: 'Firecracker v1.7.0', jailer: null, image, warm: true, host, runsDir: join(root, 'runs'), ...overrides,
  });
  /** The runs' argv and requests with the scratch directory, run ids and temp dirs made stable. */
  const normalized = (): unknown =>
    JSON.parse(
      JSON.stringify(host.spawned)
        .replaceAll(root, '<root>')
        .replaceAll(tmpdir(), '<tmp>')
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
        .replace(/airlock-fc-(snapshot-)?[A-Za-z0-9]{6}/g, 'airlock-fc-$1XXXXXX')
        // The jailed test drops to its own uid and gid (chown needs no privilege then).
        .replace(/"--(uid|gid)","\d+"/g, '"--$1","<$1>"'),
    );
  const golden = (name: string): unknown => {
    const path = join(import.meta.dirname, 'golden', name);
    // AIRLOCK_UPDATE_GOLDEN=1 rewrites a sequence; the diff is then reviewed against the API specification.
    if (process.env.AIRLOCK_UPDATE_GOLDEN === '1') writeFileSync(path, JSON.stringify(normalized(), null, 2) + '\n');
    return JSON.parse(readFileSync(path, 'utf8'));
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'airlock-fc-execute-'));
    const dir = join(root, 'cache/k');
    mkdirSync(dir, { recursive: true });
    image = { key: 'k', dir, kernel: join(dir, 'vmlinuz'), initrd: join(dir, 'initrd.cpio'), root: join(dir, 'root.img'), manifest: join(dir, 'manifest.json') };
    for (const path of [image.kernel, image.initrd, image.root]) writeFileSync(path, 'image file\n');
    host = new ScriptedFirecracker();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a cold run (warm off): boot source, drives, machine config, start; `go` on ready', async () => {
    const run = await executeOn(context({ warm: false }), spec);
    expect([run.exitCode, run.warmStart, run.backend]).toEqual([0, false, 'firecracker']);
    expect(readFileSync(run.phases[0]?.stdoutPath ?? '', 'utf8')).toBe('hello from firecracker\n');
    expect(normalized()).toEqual(golden('sequence-cold.json'));
  });

  it('the first warm run writes the snapshot and restores it; later runs only restore it', async () => {
    const first = await executeOn(context(), spec);
    expect([first.exitCode, first.warmStart]).toEqual([0, true]);
    expect(readFileSync(first.phases[0]?.stdoutPath ?? '', 'utf8')).toBe('hello from firecracker\n');
    // Kept beside the image: the state, the memory, and the placeholder disks it recorded.
    for (const suffix of ['snap', 'mem', 'input.img', 'output.img']) expect(existsSync(join(image.dir, `fc-warm-direct-576m-v1.7.0.${suffix}`))).toBe(true);
    expect(normalized()).toEqual(golden('sequence-warm-first.json'));
    const second = await executeOn(context(), spec);
    expect(second.warmStart).toBe(true);
    expect(host.spawned).toHaveLength(3);
    expect(host.spawned[2]?.requests.map((call) => `${call.method} ${call.path}`)).toEqual(['PUT /snapshot/load', 'PATCH /drives/input', 'PATCH /drives/output', 'PATCH /vm']);
  });

  it('jailed: the jailer is what is started; image and snapshot are linked into the jail, disks made and owned there', async () => {
    const jailer: JailerConfig = { jailer: '/opt/fc/jailer', uid: process.getuid?.() ?? 1000, gid: process.getgid?.() ?? 1000, chrootBase: join(root, 'jail') };
    const run = await executeOn(context({ jailer }), spec);
    expect([run.exitCode, run.warmStart]).toEqual([0, true]);
    const [create, load] = host.spawned;
    expect(create?.argv[0]).toBe('/opt/fc/jailer');
    expect(create?.jailFiles).toEqual(['vmlinuz', 'initrd.cpio', 'root.img', 'input.img', 'output.img']);
    expect(load?.jailFiles).toEqual(['vmlinuz', 'initrd.cpio', 'root.img', 'input.img', 'output.img', 'warm.snap', 'warm.mem']);
    expect(normalized()).toEqual(golden('sequence-jailed.json'));
    // The snapshot moved out of its jail into the cache; no jail is left behind.
    expect(readFileSync(join(image.dir, 'fc-warm-jailed-576m-v1.7.0.snap'), 'utf8')).toBe('state');
    expect(statSync(join(root, 'jail/firecracker')).isDirectory()).toBe(true);
    expect(existsSync(join(root, 'jail/firecracker', run.runId))).toBe(false);
  });

  it('a snapshot that cannot be made is a warning and the run boots cold', async () => {
    host.failSnapshotCreate = true;
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const run = await executeOn(context(), spec);
      expect([run.exitCode, run.warmStart]).toEqual([0, false]);
      expect(host.spawned[1]?.requests.map((call) => call.path)).toEqual(['/boot-source', '/drives/root', '/drives/input', '/drives/output', '/machine-config', '/actions']);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.some((message) => /no warm snapshot, booting cold: .*scripted failure/.test(message))).toBe(true);
      expect(existsSync(join(image.dir, 'fc-warm-direct-576m-v1.7.0.snap'))).toBe(false);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('network scoped is refused before anything starts', async () => {
    await expect(executeOn(context(), parseSandboxSpec({ network: 'scoped', phases: [{ name: 't', argv: ['true'] }] }))).rejects.toThrow(/needs a tap device/);
    expect(host.spawned).toHaveLength(0);
  });
});
