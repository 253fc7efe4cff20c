// The kernel of one sandbox: VFS, processes, scheduler and the run loop. It runs on the
// sandbox worker's single thread and is reached only through the KernelApi
// (kernel-service.ts, served by workers/*-kernel.ts).

import type { ErrorClass, KernelInit, ModuleDelivery, ModuleSpec, RunReply, RunRequest } from '../protocol/messages.js';
import { DEFAULT_PACKAGE_POLICY, type SandboxLimits } from '../protocol/limits.js';
import type { ChangeBatch, InodeRecord } from '../protocol/records.js';
import type { NetRequest } from '../protocol/network.js';
import { createAirlockImports } from './abi/airlock.js';
import { ForeignRunner, type ForeignWorkerFactory } from './abi/foreign/foreign-program.js';
import { createWasiImports } from './abi/wasi-preview1.js';
import { AsyncifyRunner } from './abi/wasm/asyncify.js';
import { MemoryPool } from './abi/wasm/memory-pool.js';
import { ProcessMemory } from './abi/wasm/process-memory.js';
import { SyscallGate } from './abi/wasm/syscall-gate.js';
import { DeferredProgram } from './abi/wasm/deferred-program.js';
import { DEFAULT_ASYNCIFY_BYTES, WasmProgram, importedMemoryMinPages, type ProcessImports } from './abi/wasm/wasm-program.js';
import { Errno, KernelError, fail } from './errno.js';
import type { Description } from './fd/description.js';
import { InputDescription, OutputSink, TerminalDescription } from './fd/stream-descriptions.js';
import { Tty } from './fd/tty.js';
import { KERNEL_PROGRAMS } from './programs/index.js';
import { DirectoryDescription } from './fd/vfs-descriptions.js';
import { ApiFs } from './api-fs.js';
import { ChangeFeed, applyRecords } from './kernel-records.js';
import { NetClient } from './net/net-client.js';
import { SIGNALS } from './proc/exit.js';
import type { Process, Program } from './proc/process.js';
import { ProcessTable } from './proc/process-table.js';
import { ProgramRegistry } from './proc/program-registry.js';
import { Scheduler } from './proc/scheduler.js';
import { RunCapture, RunInput, SessionConsole, SessionInput, type StreamName } from './run-io.js';
import { SessionShell } from './session/session-shell.js';
import { ExternalRunner, type ExternalProgram } from './sys/external-program.js';
import type { Refusal } from './sys/refusal.js';
import type { ExecTarget } from './sys/exec.js';
import { FOREIGN_TOOL, launch, type Launch } from './sys/spawn.js';
import { wasiRun } from './abi/foreign/wasi-run.js';
import { pkgProgram, type PackageHost } from './packages/pkg.js';
import type { PackageReport } from '../protocol/audit/package-report.js';
import { pipProgram } from './packages/pip.js';
import { PackageStore } from './packages/store.js';
import { Syscalls, type SyscallKernel } from './sys/syscalls.js';
import { HOME, USER_NAME, bootFilesystem, type BootResult } from './vfs/boot.js';
import type { VfsCaller } from './vfs/caller.js';
import type { FsLimitError } from './vfs/limits.js';
import { normalizeAbsolute } from './vfs/path.js';
import { ROOT_INO, Vfs, type VfsSnapshot } from './vfs/vfs.js';

export const KERNEL_VERSION = 'Airlock 0.1.0 (wasm32-wasi kernel)';

export interface KernelEvents {
  output(runId: number, stream: StreamName, data: Uint8Array): void;
  netRequest(id: number, request: NetRequest): void;
  /** A program is about to start (after PATH and `#!` resolution); the gate trace. */
  exec?(path: string, argv: string[]): void;
  /**
   * A process of run `runId` waits to read its interactive stdin. A terminal holds typed
   * lines until then, so lines typed ahead that no program reads become the next commands.
   */
  stdinWanted?(runId: number): void;
  /** A refusal made on a process's behalf (sys/refusal.ts): for the host's audit. */
  refused?(refusal: Refusal): void;
  /** A program changed the terminal's mode (fd/tty.ts flags), or it went back to cooked. */
  terminalMode?(runId: number, flags: number): void;
  /** The run's clock stopped (an interpreter loading) or goes on again: the host's hard kill follows it. */
  runClock?(runId: number, held: boolean): void;
  /** What pkg installed, removed or refused: for the host's audit. */
  packageReported?(report: PackageReport): void;
}

/** The caller the host API acts as: the sandbox user, with the default umask. */
export const API_CALLER: VfsCaller = { pid: 0, umask: 0o022, uid: 1000, gid: 1000 };

/** Where a kernel cannot start workers: a foreign program says so and exits 126. */
const FOREIGN_UNAVAILABLE: Program = {
  name: 'wasi',
  async run(process, environment) {
    environment.writeError(`${process.argv[0] ?? 'wasi'}: cannot run a WASI program here: this sandbox cannot start workers (no SharedArrayBuffer: the page is not cross-origin isolated)\n`);
    process.end(126, 'exit');
  },
};

export class Kernel implements SyscallKernel {
  readonly vfs: Vfs;
  readonly scheduler = new Scheduler();
  readonly processes: ProcessTable;
  readonly programs = new ProgramRegistry();
  private readonly memories = new MemoryPool();
  readonly boot: BootResult;
  readonly limits: SandboxLimits;
  private readonly keepBackground: boolean;
  private readonly allowedTools: Set<string> | null;
  private readonly baseEnv: Record<string, string>;
  /** The session's terminal: the mode full-screen programs set, and the size. */
  readonly tty = new Tty((flags) => {
    if (this.currentRun !== undefined) this.events.terminalMode?.(this.currentRun, flags);
  });
  private currentRun: number | undefined;
  /** The run's deadline while something holds it (holdDeadline): what is left of it is kept. */
  private deadlineHold: { runId: number; count: number; at: number; deadline: number; told: boolean } | undefined;
  private readonly console = new SessionConsole(this.tty);
  private readonly input = new SessionInput(this.tty);
  private readonly runInputs = new Map<number, RunInput>();
  private readonly runGroups = new Map<number, number>();
  private readonly session: SessionShell | undefined;
  private readonly snapshots = new Map<number, { vfs: VfsSnapshot; shellState: Uint8Array }>();
  private readonly changes: ChangeFeed;
  readonly fs: ApiFs;
  readonly net: NetClient;
  /** Runs wasm modules found in the filesystem; undefined where no worker can be started. */
  private readonly foreign: ForeignRunner | undefined;

  constructor(
    init: KernelInit,
    private readonly events: KernelEvents,
    /** Programs the worker provides itself (Python), keyed by the tools they answer to. */
    externals: Array<{ tools: string[]; program: ExternalProgram }> = [],
    /** Starts the workers foreign WASI programs run in (docs/architecture.md §2). */
    foreignWorkers?: ForeignWorkerFactory,
  ) {
    this.limits = init.limits;
    this.keepBackground = init.keepBackgroundProcesses === true;
    this.allowedTools = init.allowedTools === null ? null : new Set(init.allowedTools);
    for (const spec of init.modules) this.registerModule(spec);
    // The kernel's own programs first: a host's external with the same name replaces one.
    for (const external of [...KERNEL_PROGRAMS, ...externals]) this.programs.register(external.tools, new ExternalRunner(external.program, (process) => new Syscalls(this, process)));
    if (foreignWorkers !== undefined) this.programs.register([FOREIGN_TOOL], new ExternalRunner(wasiRun, (process) => new Syscalls(this, process)));
    const packages: PackageHost = { policy: init.packages ?? DEFAULT_PACKAGE_POLICY, store: new PackageStore(() => this.vfs), isTool: (name) => this.programs.has(name), report: (report) => this.events.packageReported?.(report) };
    this.programs.register(['pkg'], new ExternalRunner(pkgProgram(packages), (process) => new Syscalls(this, process)));
    // pip and pip3 are Python's (it refuses them) unless the policy names a Python index.
    if (packages.policy.enabled && packages.policy.pythonIndex !== null) this.programs.register(['pip', 'pip3'], new ExternalRunner(pipProgram(packages.policy, packages.policy.pythonIndex), (process) => new Syscalls(this, process)));
    this.vfs = new Vfs({ fsBytes: init.limits.fsBytes, fileCount: init.limits.fileCount });
    this.processes = new ProcessTable(this.scheduler, {
      memoryLimitBytes: () => this.limits.memoryBytes,
      processLimit: () => this.limits.processes,
      // The run reports the limit (errorClass 'limit'), not a crash; its other processes go on.
      memoryLimitReached: () => {
        this.runLimit ??= { name: 'memoryBytes', value: this.limits.memoryBytes };
      },
      processLimitReached: (limit) => this.endRunAtLimit({ name: 'processes', value: limit }, `process limit reached: ${limit} processes per sandbox (processes)`),
      // Until the run ends, nothing it does may start a process again (a loop would refill the table).
      spawnsClosed: () => (this.runLimit === undefined ? undefined : `the run reached its ${this.runLimit.name} limit and is being ended`),
      writeStderr: (process, text) => writeTo(process, 2, text),
      onExit: (process) => {
        this.net.forget(process);
        this.tty.processExited(process.pid);
      },
    });
    this.net = new NetClient((id, request) => this.events.netRequest(id, request));
    this.boot = bootFilesystem(this.vfs, { tools: this.programs.tools(), hostname: init.hostname, kernelVersion: KERNEL_VERSION }, this.processes);
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
    this.foreign = foreignWorkers === undefined ? undefined : new ForeignRunner({
      scheduler: this.scheduler,
      syscalls: (process) => new Syscalls(this, process),
      createWasiImports,
    }, foreignWorkers);
    this.fs = new ApiFs(this.vfs, API_CALLER);
    this.changes = new ChangeFeed(this.vfs);
    if (this.programs.has('bash')) {
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
    return launch(this, {
      parent: undefined, caller: API_CALLER, program: 'bash',
      // The shell's own limits (docs/abi.md, "The session shell"); its child shells inherit them.
      argv: ['bash', '--airlock-session', `--call-depth=${this.limits.callDepth}`, `--substitution-depth=${this.limits.substitutionDepth}`],
      env: envList(this.baseEnv, { PWD: HOME }), cwd: HOME, cwdIno: this.boot.homeIno, fds: this.sessionStdio(),
      blob: state, ignoreSigpipe: true, newGroup: true, umask: 0o022,
    });
  }

  private registerModule(spec: ModuleSpec): void {
    if (spec.deferred === true) {
      const deferred = new DeferredProgram(spec.name);
      this.deferred.set(spec.name, { program: deferred, tools: spec.tools });
      this.programs.register(spec.tools, deferred);
      return;
    }
    this.programs.register(spec.tools, this.wasmProgram(spec));
  }

  /** The modules init named as deferred (ModuleSpec.deferred), by name, until they arrive. */
  private readonly deferred = new Map<string, { program: DeferredProgram; tools: string[] }>();

  /** The deferred modules have arrived (or cannot): their waiting runs go on (or fail). */
  provideModules(delivery: ModuleDelivery): void {
    if ('failed' in delivery) {
      for (const { program } of this.deferred.values()) program.fail(delivery.failed);
      return;
    }
    for (const spec of delivery.modules) {
      const waiting = this.deferred.get(spec.name);
      if (waiting === undefined) throw new Error(`module ${spec.name}: init did not name it as deferred`);
      this.deferred.delete(spec.name);
      let program: WasmProgram;
      try {
        program = this.wasmProgram({ ...spec, deferred: false });
      } catch (error) {
        waiting.program.fail((error as Error).message);
        continue;
      }
      // Only the tools still its own: a kernel program or an external may have replaced one.
      for (const tool of waiting.tools) if (this.programs.has(tool) && this.programs.get(tool) === waiting.program) this.programs.register([tool], program);
      waiting.program.provide(program);
    }
  }

  private wasmProgram(spec: ModuleSpec): WasmProgram {
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
    const runtime = { imports: this.buildImports.bind(this), memories: this.memories };
    return new WasmProgram(spec.name, module, memoryMinPages, spec.asyncifyBytes ?? DEFAULT_ASYNCIFY_BYTES, runtime);
  }

  /**
   * The imports of a wasm instance: its memory, WASI preview1 and the `airlock` module,
   * acting for the process bind() gives them (the instance may be made before it has one).
   * They are made once per memory and reused with it (abi/wasm/memory-pool.ts): building
   * ~100 closures per process was half of what a spawn allocated (~55 of 104 KiB), and so
   * of the young-generation collections in the tail of spawn latency. A memory, and so its
   * imports, goes back to the pool only once its process has ended; the imports keep
   * nothing of that process but the binding, which is dropped here before an instance of
   * another process is made with them.
   */
  private buildImports(memory: WebAssembly.Memory): ProcessImports {
    const reused = this.importSets.get(memory);
    if (reused !== undefined) {
      reused.gate.unbind();
      return reused.imports;
    }
    const runner = new AsyncifyRunner();
    const gate = new SyscallGate(this.scheduler, runner);
    const view = new ProcessMemory(memory);
    const imports: ProcessImports = {
      runner,
      imports: {
        env: { memory },
        wasi_snapshot_preview1: createWasiImports(view, gate),
        airlock: createAirlockImports(view, gate, this.session),
      },
      bind: (process) => {
        process.memoryBytes = () => memory.buffer.byteLength;
        gate.bind(new Syscalls(this, process));
      },
    };
    this.importSets.set(memory, { gate, imports });
    return imports;
  }

  /** buildImports()'s import sets, by the memory they act on (they go when it goes). */
  private readonly importSets = new WeakMap<WebAssembly.Memory, { gate: SyscallGate; imports: ProcessImports }>();

  // ---- what the syscall core needs (sys/spawn.ts, sys/syscalls.ts) ------------------------

  exec(path: string, argv: string[]): void {
    this.events.exec?.(path, argv);
  }

  refused(refusal: Refusal): void {
    this.events.refused?.(refusal);
  }

  programFor(target: ExecTarget): Program | undefined {
    if (target.kind === 'wasm') return this.foreign?.programFor(target.file, target.path) ?? FOREIGN_UNAVAILABLE;
    return this.programs.has(target.tool) ? this.programs.get(target.tool) : undefined;
  }

  get defaultTimeoutMs(): number {
    return this.limits.timeoutMs;
  }

  allowsTool(tool: string): boolean {
    return this.allowedTools === null || this.allowedTools.has(tool) || SHELL_TOOLS.has(tool);
  }

  rootPreopen(): DirectoryDescription {
    return new DirectoryDescription(this.vfs, ROOT_INO, '/', '/');
  }

  controllingTerminal(): Description | undefined {
    return this.input.terminal ? new TerminalDescription(this.input, this.console) : undefined;
  }

  /** The terminal's new size (the page's terminal was resized). */
  resizeTerminal(size: { cols: number; rows: number }): void {
    this.tty.resize(size);
  }

  /**
   * Stops the current run's clock until the returned function is called (every holder
   * must release): time spent waiting for the person at the terminal, or for an
   * interpreter to load, does not count toward the deadline. `tellHost`: the host's hard
   * kill stops too (for the terminal, the host already knows it is waiting for input).
   */
  holdDeadline(tellHost = true): () => void {
    const runId = this.currentRun;
    const deadline = this.scheduler.deadline;
    if (runId === undefined) return () => undefined;
    let hold = this.deadlineHold;
    if (hold === undefined) {
      if (deadline === undefined) return () => undefined;
      hold = { runId, count: 0, at: performance.now(), deadline, told: false };
      this.deadlineHold = hold;
      this.scheduler.setDeadline(undefined);
    }
    hold.count += 1;
    if (tellHost && !hold.told) {
      hold.told = true;
      this.events.runClock?.(runId, true);
    }
    let released = false;
    return () => {
      if (released || this.deadlineHold !== hold) return;
      released = true;
      hold.count -= 1;
      if (hold.count > 0) return;
      this.deadlineHold = undefined;
      this.scheduler.setDeadline(hold.deadline + (performance.now() - hold.at));
      if (hold.told) this.events.runClock?.(hold.runId, false);
    };
  }

  // ---- runs ----------------------------------------------------------------------------

  async run(request: RunRequest): Promise<RunReply> {
    const capture = new RunCapture(this.limits, (stream, bytes) => this.events.output(request.runId, stream, bytes));
    // Time spent waiting for the person at the terminal does not count toward the deadline.
    let waitingForInput: (() => void) | undefined;
    const input = new RunInput(
      request.stdin,
      request.interactiveStdin === true,
      () => {
        waitingForInput ??= this.holdDeadline(false);
        this.events.stdinWanted?.(request.runId);
      },
      () => {
        waitingForInput?.();
        waitingForInput = undefined;
      },
    );
    this.runInputs.set(request.runId, input);
    this.currentRun = request.runId;
    if (request.terminalSize !== undefined) this.tty.resize(request.terminalSize);
    this.console.current = capture;
    this.console.terminal = request.terminal === true;
    this.input.current = input;
    this.input.terminal = request.terminal === true;
    this.vfs.meter.lastRefusal = undefined;
    this.runLimit = undefined;
    this.scheduler.setDeadline(performance.now() + request.timeoutMs);
    let exitCode: number;
    let errorClass: ErrorClass | null = null;
    let cwd: string;
    try {
      const outcome =
        typeof request.command === 'string' && this.session !== undefined
          ? await this.runInSession(request, request.command)
          : await this.runArgv(request, Array.isArray(request.command) ? request.command : splitWords(request.command), capture);
      exitCode = outcome.exitCode;
      errorClass = outcome.errorClass;
      cwd = outcome.cwd;
    } finally {
      // What the run left in the background ends with it, unless the sandbox keeps jobs.
      if (!this.keepBackground) this.endProcesses();
      this.scheduler.setDeadline(undefined);
      this.deadlineHold = undefined;
      // A full-screen program stopped before it could restore the terminal.
      this.tty.reset();
      this.currentRun = undefined;
      this.runInputs.delete(request.runId);
      this.runGroups.delete(request.runId);
      this.console.current = undefined;
      this.input.current = undefined;
    }
    // Set by writes during the run (TypeScript cannot see that across the awaits above).
    const refusal = this.vfs.meter.lastRefusal as FsLimitError | undefined;
    const ended = this.runLimit as RunLimit | undefined;
    this.runLimit = undefined;
    const limit = ended ?? (refusal === undefined ? undefined : { name: refusal.limit, value: refusal.value });
    if (ended !== undefined && (errorClass === null || errorClass === 'crash')) errorClass = 'limit';
    if (errorClass === null && limit !== undefined) errorClass = 'limit';
    const reply: RunReply = { exitCode, truncated: { ...capture.truncated }, errorClass, cwd };
    if (errorClass === 'limit' && limit !== undefined) reply.limit = limit;
    if (this.session !== undefined) reply.shellState = this.session.lastState;
    if (request.changesBudget !== undefined) reply.changes = this.changes.take(request.changesBudget);
    return reply;
  }

  private async runInSession(request: RunRequest, command: string): Promise<RunOutcome> {
    const session = this.session as SessionShell;
    const cwd = request.cwd === undefined ? null : normalizeAbsolute(request.cwd, HOME);
    const pending = session.run({ runId: request.runId, command, cwd, env: request.env ?? {} });
    const group = session.pgid;
    if (group !== undefined) this.runGroups.set(request.runId, group);
    const result = await pending;
    if (result.crashed) {
      const why = this.runLimit?.name === 'memoryBytes' ? `reached its memory limit (memoryBytes is ${this.limits.memoryBytes})` : 'crashed';
      this.console.write('stderr', new TextEncoder().encode(`airlock: the shell ${why}; the next command starts from the state before this one\n`));
      return { exitCode: result.status === 0 ? 1 : result.status, errorClass: 'crash', cwd: session.cwd ?? HOME };
    }
    const timedOut = this.scheduler.remaining() === 0 && result.status === 124;
    const cancelled = this.cancelledRuns.has(request.runId) && result.status === 130;
    this.cancelledRuns.delete(request.runId);
    return { exitCode: result.status, errorClass: timedOut ? 'timeout' : cancelled ? 'cancelled' : null, cwd: session.cwd ?? HOME };
  }

  private async runArgv(request: RunRequest, argv: string[], capture: RunCapture): Promise<RunOutcome> {
    const cwdPath = normalizeAbsolute(request.cwd ?? HOME, HOME);
    if (argv.length === 0) return { exitCode: 0, errorClass: null, cwd: cwdPath };
    const cwd = this.vfs.resolve(ROOT_INO, cwdPath, true, API_CALLER);
    if (cwd.kind !== 'dir') fail(Errno.NOTDIR, `working directory ${cwdPath} is not a directory`);
    const env = envList(this.baseEnv, { PWD: cwdPath }, request.env ?? {});
    const program = argv[0] as string;
    const spec: Launch = {
      parent: undefined, caller: API_CALLER, program, argv, env, cwd: cwdPath, cwdIno: cwd.ino, fds: this.sessionStdio(),
      blob: new Uint8Array(0), ignoreSigpipe: false, newGroup: true, umask: 0o022,
    };
    let process: Process;
    try {
      process = launch(this, spec);
    } catch (error) {
      if (!(error instanceof KernelError)) throw error;
      const notFound = error.errno === Errno.NOENT;
      const message = notFound ? 'command not found' : error.errno === Errno.ACCES ? 'Permission denied' : error.message;
      capture.write('stderr', new TextEncoder().encode(`airlock: ${program}: ${message}\n`));
      return { exitCode: notFound ? 127 : 126, errorClass: notFound ? 'not-found' : 'denied', cwd: cwdPath };
    }
    this.runGroups.set(request.runId, process.pgid);
    const exitCode = await process.exited();
    const errorClass: ErrorClass | null =
      process.program === undefined ? 'denied'
      : process.endReason === 'deadline' ? 'timeout'
      : process.endReason === 'crash' ? 'crash'
      : process.endReason === 'signal' && exitCode === 128 + (SIGNALS.INT as number) ? 'cancelled'
      : null;
    return { exitCode, errorClass, cwd: cwdPath };
  }

  private readonly cancelledRuns = new Set<number>();

  /** A limit that ended the current run (the process limit), for its reply. */
  private runLimit: RunLimit | undefined;

  /**
   * Ends the current run because it reached `limit`: says so once on its stderr and ends
   * every process but the session shell (a fork bomb would otherwise go on until its
   * deadline, refused spawn after refused spawn). The session shell then finishes the
   * command line with its children gone, and the next run starts at once.
   */
  private endRunAtLimit(limit: RunLimit, message: string): void {
    if (this.runLimit !== undefined) return;
    this.runLimit = limit;
    this.console.write('stderr', new TextEncoder().encode(`airlock: ${message}; the command's processes were ended\n`));
    this.scheduler.schedule(() => this.endProcesses());
  }

  /** Ends every process but the session shell. */
  private endProcesses(): void {
    for (const process of this.processes.all()) if (!process.signalExempt) this.processes.terminate(process);
  }

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

/** The limit that ended a run, as RunReply.limit names it. */
type RunLimit = NonNullable<RunReply['limit']>;

/** How a run ended, before the kernel adds what every run reports. */
interface RunOutcome {
  exitCode: number;
  errorClass: ErrorClass | null;
  cwd: string;
}

/** Shells are the interpreter of run() itself, so the tool allowlist does not apply to them. */
const SHELL_TOOLS = new Set(['bash', 'sh']);

/**
 * `KEY=value` strings of the layers, later ones overriding. Merged by assignment into an
 * object with no prototype (a key named `__proto__` stays a key), not by spreading: in
 * Node 20's V8 the scavenger promoted what `{ ...a, key: value }` built, run after run, where
 * it promoted nothing of `{ ...a }` or Object.assign (docs/limits.md).
 */
function envList(...layers: Array<Record<string, string>>): string[] {
  const env = Object.assign(Object.create(null) as Record<string, string>, ...layers);
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
