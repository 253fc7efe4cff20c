// The kernel of one sandbox: VFS, processes, scheduler and the run loop. It runs on the
// sandbox worker's single thread and is reached only through the KernelApi (worker.ts).

import type { ErrorClass, KernelInit, ModuleSpec, RunReply, RunRequest } from '../protocol/messages.js';
import type { SandboxLimits } from '../protocol/limits.js';
import { Errno, KernelError, fail } from './errno.js';
import { createAirlockImports, type AirlockKernel } from './proc/airlock-imports.js';
import { resolveExec } from './proc/exec.js';
import { DEFAULT_ASYNCIFY_BYTES, ModuleRegistry, importedMemoryMinPages } from './proc/module-registry.js';
import type { Process } from './proc/process.js';
import { ProcessTable } from './proc/process-table.js';
import { ProcessSyscalls } from './proc/process-syscalls.js';
import type { ExternalProgram } from './proc/module-registry.js';
import { Scheduler } from './proc/scheduler.js';
import { SPAWN_FLAG_IGNORE_SIGPIPE, SPAWN_FLAG_NEW_GROUP, type SpawnRequest } from './proc/spawn-request.js';
import { RunCapture, RunInput, SessionConsole, SessionInput, type StreamName } from './run-io.js';
import { AsyncifyRunner } from './wasi/asyncify.js';
import type { Description } from './wasi/description.js';
import { InputDescription, OutputSink } from './wasi/stream-descriptions.js';
import { SyscallGate } from './wasi/syscall-gate.js';
import { DirectoryDescription } from './wasi/vfs-descriptions.js';
import { callerOf, createWasiImports } from './wasi/wasi-imports.js';
import { HOME, USER_NAME, bootFilesystem, type BootResult } from './vfs/boot.js';
import { normalizeAbsolute } from './vfs/path.js';
import { ROOT_INO, Vfs, type VfsCaller } from './vfs/vfs.js';
import type { FsLimitError } from './vfs/limits.js';
import { SIGNALS } from './proc/exit.js';
import { SessionShell } from './session/session-shell.js';
import { KernelFs } from './kernel-fs.js';
import { ChangeFeed, applyRecords } from './kernel-records.js';
import type { ChangeBatch, InodeRecord } from '../protocol/records.js';
import type { ProcessMemory } from './wasi/process-memory.js';
import type { SyscallResult } from './wasi/asyncify.js';
import type { VfsSnapshot } from './vfs/vfs.js';
import { NetClient } from './net/net-imports.js';
import type { NetRequest } from '../protocol/network.js';

export const KERNEL_VERSION = 'Airlock 0.1.0 (wasm32-wasi kernel)';

export interface KernelEvents {
  output(runId: number, stream: StreamName, data: Uint8Array): void;
  netRequest(id: number, request: NetRequest): void;
}

/** The caller the host API acts as: the sandbox user, with the default umask. */
export const API_CALLER: VfsCaller = { pid: 0, umask: 0o022, uid: 1000, gid: 1000 };

export class Kernel implements AirlockKernel {
  readonly vfs: Vfs;
  readonly scheduler = new Scheduler();
  readonly processes: ProcessTable;
  readonly modules = new ModuleRegistry();
  readonly boot: BootResult;
  readonly limits: SandboxLimits;
  private readonly allowedTools: Set<string> | null;
  private readonly baseEnv: Record<string, string>;
  private readonly console = new SessionConsole();
  private readonly input = new SessionInput();
  private readonly runInputs = new Map<number, RunInput>();
  private readonly runGroups = new Map<number, number>();
  private readonly session: SessionShell | undefined;
  private readonly snapshots = new Map<number, { vfs: VfsSnapshot; shellState: Uint8Array }>();
  private readonly changes: ChangeFeed;
  readonly fs: KernelFs;
  readonly net: NetClient;

  constructor(
    init: KernelInit,
    private readonly events: KernelEvents,
    /** Programs the worker provides itself (Python), keyed by the tools they answer to. */
    externals: Array<{ tools: string[]; program: ExternalProgram }> = [],
  ) {
    this.limits = init.limits;
    this.allowedTools = init.allowedTools === null ? null : new Set(init.allowedTools);
    for (const spec of init.modules) this.registerModule(spec);
    for (const external of externals) this.modules.register(external.tools, external.program);
    this.vfs = new Vfs({ fsBytes: init.limits.fsBytes, fileCount: init.limits.fileCount });
    this.processes = new ProcessTable(this.scheduler, {
      buildImports: (process, runner) => this.buildImports(process, runner),
      syscallsFor: (process) => new ProcessSyscalls(this, process),
      memoryLimitBytes: () => this.limits.memoryBytes,
      writeStderr: (process, text) => writeTo(process, 2, text),
      onExit: (process) => this.net.forget(process),
    });
    this.net = new NetClient((id, request) => this.events.netRequest(id, request));
    this.boot = bootFilesystem(this.vfs, { tools: this.modules.tools(), hostname: init.hostname, kernelVersion: KERNEL_VERSION }, this.processes);
    this.baseEnv = {
      HOME,
      USER: USER_NAME,
      LOGNAME: USER_NAME,
      PATH: '/usr/local/bin:/usr/bin:/bin',
      SHELL: '/bin/bash',
      LANG: 'C.UTF-8',
      HOSTNAME: init.hostname,
      TMPDIR: '/tmp',
      ...init.env,
    };
    this.fs = new KernelFs(this.vfs, API_CALLER);
    this.changes = new ChangeFeed(this.vfs);
    if (this.modules.has('bash')) {
      this.session = new SessionShell(new Uint8Array(0), this.scheduler, (state) => this.spawnSessionShell(state));
    }
  }

  private sessionStdio(): Array<[number, Description]> {
    return [
      [0, new InputDescription(this.input)],
      [1, new OutputSink('stdout', this.console)],
      [2, new OutputSink('stderr', this.console)],
    ];
  }

  private spawnSessionShell(state: Uint8Array): Process {
    return this.processes.spawn({
      parent: undefined, tool: 'bash', program: this.modules.get('bash'), argv: ['bash', '--airlock-session'],
      env: envList({ ...this.baseEnv, PWD: HOME }), cwd: HOME, cwdIno: this.boot.homeIno, fds: this.sessionStdio(),
      preopen: this.rootPreopen(), blob: state, ignoreSigpipe: true, newGroup: true, umask: 0o022,
    });
  }

  /** The `airlock` imports other parts of the kernel provide (the session protocol). */
  extraImports(process: Process, memory: ProcessMemory, gate: SyscallGate): Record<string, (...args: never[]) => SyscallResult> {
    const net = this.net.imports(process, memory, gate, () => Math.floor(this.scheduler.remaining() ?? this.limits.timeoutMs));
    if (this.session === undefined) return net;
    return { ...net, ...this.session.imports(process, memory, gate) };
  }

  private registerModule(spec: ModuleSpec): void {
    let module = spec.module;
    let memoryMinPages: number;
    if (spec.bytes !== undefined) {
      memoryMinPages = importedMemoryMinPages(spec.bytes);
      module ??= new WebAssembly.Module(spec.bytes as Uint8Array<ArrayBuffer>);
    } else if (module !== undefined && spec.memoryMinPages !== undefined) {
      memoryMinPages = spec.memoryMinPages;
    } else {
      throw new Error(`module ${spec.name}: needs bytes, or a compiled module and memoryMinPages`);
    }
    if (!AsyncifyRunner.supports(module)) throw new Error(`module ${spec.name} is not asyncified`);
    this.modules.register(spec.tools, { name: spec.name, module, memoryMinPages, asyncifyBytes: spec.asyncifyBytes ?? DEFAULT_ASYNCIFY_BYTES });
  }

  private buildImports(process: Process, runner: AsyncifyRunner): WebAssembly.Imports {
    const gate = new SyscallGate(process, this.scheduler, runner);
    return {
      env: { memory: process.memory as WebAssembly.Memory },
      wasi_snapshot_preview1: createWasiImports(process, this, gate),
      airlock: createAirlockImports(process, this, gate),
    };
  }

  allowsTool(tool: string): boolean {
    return this.allowedTools === null || this.allowedTools.has(tool) || SHELL_TOOLS.has(tool);
  }

  // ---- spawning ------------------------------------------------------------------------

  /** airlock.proc_spawn: a process started by another process. */
  spawnFor(parent: Process, request: SpawnRequest): number {
    const cwd = request.cwd.length > 0 ? normalizeAbsolute(request.cwd, parent.cwd) : parent.cwd;
    const cwdInode = this.vfs.resolve(parent.cwdIno, request.cwd.length > 0 ? request.cwd : '.', true, callerOf(parent));
    if (cwdInode.kind !== 'dir') fail(Errno.NOTDIR, 'working directory is not a directory');
    const fds: Array<[number, Description]> = request.fds.map(({ childFd, parentFd }) => [childFd, parent.fds.get(parentFd)]);
    const env = request.env;
    const argv = request.argv.length > 0 ? request.argv : [request.program];
    const target = resolveExec(this.vfs, callerOf(parent), cwdInode.ino, request.program, argv, env);
    const common = {
      parent, argv: target.argv, env, cwd, cwdIno: cwdInode.ino, fds,
      preopen: this.rootPreopen(), blob: request.blob,
      ignoreSigpipe: (request.flags & SPAWN_FLAG_IGNORE_SIGPIPE) !== 0,
      newGroup: (request.flags & SPAWN_FLAG_NEW_GROUP) !== 0, umask: parent.umask,
    };
    if (!this.allowsTool(target.tool)) {
      return this.processes.spawnRefusal(common, refusalMessage(target.tool), 126).pid;
    }
    if (!this.modules.has(target.tool)) fail(Errno.NOENT, `tool ${target.tool} is not installed`);
    return this.processes.spawn({ ...common, tool: target.tool, program: this.modules.get(target.tool) }).pid;
  }

  private rootPreopen(): DirectoryDescription {
    return new DirectoryDescription(this.vfs, ROOT_INO, '/', '/');
  }

  // ---- runs ----------------------------------------------------------------------------

  async run(request: RunRequest): Promise<RunReply> {
    const capture = new RunCapture(this.limits, (stream, bytes) => this.events.output(request.runId, stream, bytes));
    const input = new RunInput(request.stdin, request.interactiveStdin === true);
    this.runInputs.set(request.runId, input);
    this.console.current = capture;
    this.console.terminal = request.terminal === true;
    this.input.current = input;
    this.input.terminal = request.terminal === true;
    this.vfs.meter.lastRefusal = undefined;
    this.scheduler.setDeadline(performance.now() + request.timeoutMs);
    let exitCode: number;
    let errorClass: ErrorClass | null = null;
    try {
      const outcome =
        typeof request.command === 'string' && this.session !== undefined
          ? await this.runInSession(request, request.command)
          : await this.runArgv(request, Array.isArray(request.command) ? request.command : splitWords(request.command), capture);
      exitCode = outcome.exitCode;
      errorClass = outcome.errorClass;
    } finally {
      this.scheduler.setDeadline(undefined);
      this.runInputs.delete(request.runId);
      this.runGroups.delete(request.runId);
      this.console.current = undefined;
      this.input.current = undefined;
    }
    // Set by writes during the run (TypeScript cannot see that across the awaits above).
    const refusal = this.vfs.meter.lastRefusal as FsLimitError | undefined;
    if (errorClass === null && refusal !== undefined) errorClass = 'limit';
    const reply: RunReply = {
      exitCode,
      stdout: capture.collect('stdout'),
      stderr: capture.collect('stderr'),
      truncated: { ...capture.truncated },
      errorClass,
    };
    if (errorClass === 'limit' && refusal !== undefined) reply.limit = { name: refusal.limit, value: refusal.value };
    if (this.session !== undefined) reply.shellState = this.session.lastState;
    return reply;
  }

  private async runInSession(request: RunRequest, command: string): Promise<{ exitCode: number; errorClass: ErrorClass | null }> {
    const session = this.session as SessionShell;
    const cwd = request.cwd === undefined ? null : normalizeAbsolute(request.cwd, HOME);
    const pending = session.run({ runId: request.runId, command, cwd, env: request.env ?? {} });
    const group = session.pgid;
    if (group !== undefined) this.runGroups.set(request.runId, group);
    const result = await pending;
    if (result.crashed) {
      this.console.write('stderr', new TextEncoder().encode('airlock: the shell crashed; the next command starts from the state before this one\n'));
      return { exitCode: result.status === 0 ? 1 : result.status, errorClass: 'crash' };
    }
    const timedOut = this.scheduler.remaining() === 0 && result.status === 124;
    const cancelled = this.cancelledRuns.has(request.runId) && result.status === 130;
    this.cancelledRuns.delete(request.runId);
    return { exitCode: result.status, errorClass: timedOut ? 'timeout' : cancelled ? 'cancelled' : null };
  }

  private async runArgv(request: RunRequest, argv: string[], capture: RunCapture): Promise<{ exitCode: number; errorClass: ErrorClass | null }> {
    if (argv.length === 0) return { exitCode: 0, errorClass: null };
    const cwdPath = normalizeAbsolute(request.cwd ?? HOME, HOME);
    const cwd = this.vfs.resolve(ROOT_INO, cwdPath, true, API_CALLER);
    if (cwd.kind !== 'dir') fail(Errno.NOTDIR, `working directory ${cwdPath} is not a directory`);
    const env = envList({ ...this.baseEnv, PWD: cwdPath, ...(request.env ?? {}) });
    const stdio: Array<[number, Description]> = [
      [0, new InputDescription(this.input)],
      [1, new OutputSink('stdout', this.console)],
      [2, new OutputSink('stderr', this.console)],
    ];
    const program = argv[0] as string;
    let target;
    try {
      target = resolveExec(this.vfs, API_CALLER, cwd.ino, program, argv, env);
    } catch (error) {
      if (!(error instanceof KernelError)) throw error;
      const notFound = error.errno === Errno.NOENT;
      const message = notFound ? 'command not found' : error.errno === Errno.ACCES ? 'Permission denied' : error.message;
      capture.write('stderr', new TextEncoder().encode(`airlock: ${program}: ${message}\n`));
      return { exitCode: notFound ? 127 : 126, errorClass: notFound ? 'not-found' : 'denied' };
    }
    if (!this.allowsTool(target.tool)) {
      capture.write('stderr', new TextEncoder().encode(refusalMessage(target.tool)));
      return { exitCode: 126, errorClass: 'denied' };
    }
    const process = this.processes.spawn({
      parent: undefined, tool: target.tool, program: this.modules.get(target.tool), argv: target.argv, env,
      cwd: cwdPath, cwdIno: cwd.ino, fds: stdio, preopen: this.rootPreopen(), blob: new Uint8Array(0),
      ignoreSigpipe: false, newGroup: true, umask: 0o022,
    });
    this.runGroups.set(request.runId, process.pgid);
    const exitCode = await process.exited();
    const errorClass: ErrorClass | null =
      process.endReason === 'deadline' ? 'timeout' : process.endReason === 'crash' ? 'crash' : process.endReason === 'signal' && exitCode === 128 + (SIGNALS.INT as number) ? 'cancelled' : null;
    return { exitCode, errorClass };
  }

  private readonly cancelledRuns = new Set<number>();

  /** Ctrl-C: SIGINT to the run's process group (the session shell learns it from session_poll). */
  cancel(runId: number): void {
    const group = this.runGroups.get(runId);
    if (group === undefined) return;
    this.cancelledRuns.add(runId);
    this.session?.cancel();
    try {
      this.processes.kill(undefined, -group, SIGNALS.INT as number);
    } catch (error) {
      if (!(error instanceof KernelError)) throw error;
    }
  }

  // ---- snapshots, changes, images -------------------------------------------------------

  snapshot(id: number): void {
    this.snapshots.set(id, { vfs: this.vfs.snapshot(), shellState: this.session?.lastState ?? new Uint8Array(0) });
  }

  /** Restores snapshot `id`; false when this kernel never took it (the host then reloads). */
  restore(id: number): boolean {
    const snap = this.snapshots.get(id);
    if (snap === undefined) return false;
    // Going back to a point in time ends what started after it (background jobs included).
    for (const process of this.processes.all()) this.processes.terminate(process);
    this.vfs.restore(snap.vfs);
    this.session?.reset(snap.shellState, (process) => this.processes.terminate(process));
    return true;
  }

  dropSnapshot(id: number): void {
    this.snapshots.delete(id);
  }

  takeChanges(budgetBytes: number): ChangeBatch {
    return this.changes.take(budgetBytes);
  }

  loadImage(page: { records: InodeRecord[]; deleted: number[]; shellState?: Uint8Array; last: boolean }): void {
    applyRecords(this.vfs, page.records, page.deleted);
    if (page.shellState !== undefined) this.session?.reset(page.shellState, (process) => this.processes.terminate(process));
    if (page.last) this.vfs.takeChanged();
  }

  writeStdin(runId: number, data: Uint8Array | null): void {
    const input = this.runInputs.get(runId);
    if (input === undefined) return;
    if (data === null) input.close();
    else input.push(data);
  }
}

/** Shells are the interpreter of run() itself, so the tool allowlist does not apply to them. */
const SHELL_TOOLS = new Set(['bash', 'sh']);

function refusalMessage(tool: string): string {
  return `airlock: ${tool}: not allowed by this sandbox's tool allowlist\n`;
}

function envList(env: Record<string, string>): string[] {
  return Object.entries(env).map(([key, value]) => `${key}=${value}`);
}

/** Until the shell exists, a command line is split on blanks (no quoting). */
function splitWords(command: string): string[] {
  return command.split(/[ \t\n]+/).filter((word) => word.length > 0);
}

/** Writes kernel text (crash reports, refusals) to a process's descriptor, never waiting. */
function writeTo(process: Process, fd: number, text: string): void {
  if (!process.fds.has(fd)) return;
  try {
    process.fds.get(fd).write(new TextEncoder().encode(text));
  } catch (error) {
    if (!(error instanceof KernelError)) throw error;
  }
}
