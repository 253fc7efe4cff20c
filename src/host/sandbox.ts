// The host API: one Sandbox is one sandbox worker plus what the host keeps of it.
//
// The host is trusted; the worker is not. So the host keeps its own copy of the sandbox's
// state as of the last completed operation (the checkpoint: the Mirror of changed inodes
// and the session shell's state), validates every change before accepting it, and enforces
// timeouts itself: when a run outlives its deadline by HARD_KILL_GRACE_MS, the worker is
// terminated and a fresh one is started from the checkpoint, so the killed run's effects
// are gone and everything before it is intact.

import { commandTooLong, resolveLimits, resolvePackagePolicy, HARD_KILL_GRACE_MS, type PackagePolicy, type SandboxLimits } from '../protocol/limits.js';
import { AirlockError, LimitError, SandboxClosedError } from '../protocol/errors.js';
import { PROTOCOL_VERSION, SANDBOX_HOME, type DirEntry, type ErrorClass, type KernelInit, type RealmReport, type RunReply, type StatResult } from '../protocol/messages.js';
import type { ChangeBatch, MountEntry } from '../protocol/records.js';
import type { KernelConnection, Platform } from './connection.js';
import { Mirror } from './mirror.js';
import { answerNetRequest, sandboxNetworkPolicy } from './network/sandbox-requests.js';
import { secretPlaceholders } from './network/secrets.js';
import { RunOutput } from './run-output.js';
import { SessionAudit, newSessionId } from './audit/session-audit.js';
import type { MountSource, OsIsolation, RunOptions, RunResult, SandboxOptions, SessionState } from './types.js';
import { ExtensionHost } from './extensions/extension-host.js';
import { resolveExtensions } from './extensions/spec.js';
import type { InodeRecord } from '../protocol/records.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Room left in each message for everything that is not file content. */
const MESSAGE_OVERHEAD = 64 * 1024;

type Outcome =
  | { kind: 'reply'; reply: RunReply }
  | { kind: 'timeout' }
  | { kind: 'cancelled' }
  | { kind: 'died'; reason: string; limit?: { name: string; value: number } };

interface Checkpoint {
  mirror: Mirror;
  shellState: Uint8Array;
  /** The session shell's working directory in that state (as its last run reported it). */
  cwd: string;
}

export class Sandbox {
  readonly limits: SandboxLimits;
  private connection!: KernelConnection;
  private checkpoint: Checkpoint;
  private readonly snapshots = new Map<number, Checkpoint>();
  private readonly outputs = new Map<number, RunOutput>();
  /** The hard-kill clocks of interactive runs (paused while they wait for input). */
  private readonly runClocks = new Map<number, { pause(): void; resume(): void }>();
  private queue: Promise<unknown> = Promise.resolve();
  private nextRunId = 1;
  private nextSnapshotId = 1;
  private closed = false;
  /** Resolves at destroy(): a run in progress then ends with SandboxClosedError. */
  private notifyClosed: () => void = () => undefined;
  private readonly whenClosed = new Promise<void>((resolve) => {
    this.notifyClosed = resolve;
  });
  /** Set when the worker died between operations; the next operation restarts it. */
  private brokenReason: string | undefined;
  private tools: string[] = [];

  /** Use `Sandbox.create()` of the node or browser entry; this only wires the platform. */
  /** Names this session in its audit events. */
  readonly sessionId: string;
  private readonly audit: SessionAudit;
  private readonly extensions: ExtensionHost;
  /** What `pkg` may install (docs/packages.md). */
  readonly packages: PackagePolicy;

  constructor(
    private readonly platform: Platform,
    private readonly options: SandboxOptions,
  ) {
    this.limits = resolveLimits(options.limits);
    this.packages = resolvePackagePolicy(options.packages);
    this.sessionId = options.sessionId ?? newSessionId();
    this.audit = new SessionAudit(options.onAuditEvent, this.sessionId);
    this.extensions = new ExtensionHost(resolveExtensions(options.extensions), { allowedTools: options.allowedTools, audit: this.audit, runId: () => this.activeRunId ?? null });
    this.checkpoint = { mirror: new Mirror(this.limits), shellState: new Uint8Array(0), cwd: SANDBOX_HOME };
  }

  /** Creates a sandbox on `platform` (use the `Sandbox` export of the node or browser entry). */
  static async createOn<T extends Sandbox>(this: new (platform: Platform, options: SandboxOptions) => T, platform: Platform, options: SandboxOptions = {}): Promise<T> {
    const sandbox = new this(platform, options);
    await sandbox.start();
    sandbox.audit.created({ allowedTools: options.allowedTools, networkHosts: options.network?.allowedHosts, forkedFrom: null, fromState: options.state !== undefined, limits: sandbox.limits });
    if (options.state !== undefined) {
      let mirror: Mirror;
      try {
        mirror = Mirror.fromRecords(sandbox.limits, options.state.records);
      } catch (error) {
        sandbox.audit.emit({ type: 'persistence.rejected', runId: null, reason: `the saved session: ${(error as Error).message}`, limit: error instanceof LimitError ? error.limit : null });
        await sandbox.destroy();
        throw error;
      }
      await sandbox.loadCheckpoint({ mirror, shellState: options.state.shellState, cwd: SANDBOX_HOME });
    }
    for (const [path, content] of Object.entries(options.files ?? {})) {
      await sandbox.writeFile(path, content, { parents: true });
    }
    return sandbox;
  }

  /**
   * How the OS confines this sandbox's worker (Node: see docs/security.md, "The OS layer");
   * null in the browser. Check `isolation.missing` where the machine may lack bubblewrap.
   */
  get isolation(): OsIsolation | null {
    return this.connection.isolation;
  }

  /** The tools installed in this sandbox (the allowlist may still refuse some). */
  get installedTools(): string[] {
    return [...this.tools];
  }

  // ---- worker lifecycle ------------------------------------------------------------------

  private budget(): number {
    return Math.max(1024, this.limits.messageBytes - MESSAGE_OVERHEAD);
  }

  /**
   * Starts the worker; with `checkpoint`, loads it too (a fork or a restart). The image is
   * sent behind init (unless a ready spare had it) without waiting for its answer: one round
   * trip, as comlink calls each method as its message arrives, in order.
   */
  private async start(checkpoint?: Checkpoint, forking = false): Promise<void> {
    // The browser's init carries the shell's module only, so the first prompt waits for one.
    const staged = this.platform.stagedModules?.();
    const init: KernelInit = {
      protocolVersion: PROTOCOL_VERSION,
      modules: await (staged?.first ?? this.platform.modules()),
      limits: this.limits,
      allowedTools: this.options.allowedTools ?? null,
      hostname: this.options.hostname ?? 'sandbox',
      // A secret's placeholder, never its value (network/secrets.ts).
      env: { ...secretPlaceholders(this.options.network?.secrets), ...(this.options.env ?? {}) },
      traceExec: this.options.onExec !== undefined,
      extensions: this.extensions.declarations,
      packages: this.packages,
      keepBackgroundProcesses: this.options.keepBackgroundProcesses === true,
    };
    const connection = await this.platform.connect({ messageBytes: this.limits.messageBytes, sandboxMemoryBytes: this.limits.sandboxMemoryBytes, sandboxCpus: this.limits.sandboxCpus, init, keepReady: forking });
    this.connection = connection;
    connection.onEvent((event) => {
      if (event.airlockEvent === 'output') this.outputs.get(event.runId)?.add(event.stream, event.data);
      else if (event.airlockEvent === 'net-request') {
        void answerNetRequest(connection, event.id, event.request, {
          options: this.options,
          policy: sandboxNetworkPolicy(this.options.network, this.packages),
          audit: this.audit,
          runId: this.activeRunId ?? null,
          responseBytes: this.limits.networkResponseBytes,
          network: this.platform.network,
          budget: this.budget(),
        });
      }
      else if (event.airlockEvent === 'stdin-wanted') {
        this.runClocks.get(event.runId)?.pause();
        this.outputs.get(event.runId)?.stdinWanted();
      }
      else if (event.airlockEvent === 'run-clock') {
        const clock = this.runClocks.get(event.runId);
        if (event.held) clock?.pause();
        else clock?.resume();
      } else if (event.airlockEvent === 'terminal-mode') this.outputs.get(event.runId)?.terminalMode(event.flags);
      else if (event.airlockEvent === 'exec') this.options.onExec?.({ path: event.path, argv: event.argv });
      else if (event.airlockEvent === 'refusals') this.audit.sandboxReported(typeof event.runId === 'number' ? event.runId : null, event.refusals);
      else if (event.airlockEvent === 'package') this.audit.packageReported(event.report);
      else if (event.airlockEvent === 'extension-call') void this.extensions.call(connection.api, event);
      else if (event.airlockEvent === 'extension-ended') this.extensions.ended(event.callId);
    });
    void connection.died.then((reason) => {
      if (this.connection === connection) this.brokenReason = reason;
    });
    const initialised = connection.initialised ?? connection.api.init(init);
    // After init, in order: a run that needs a deferred module waits for it in the worker.
    if (staged !== undefined) {
      void staged.rest.then((modules) => connection.api.provideModules({ modules }), (error: unknown) => connection.api.provideModules({ failed: error instanceof Error ? error.message : String(error) })).catch(() => undefined);
    }
    const loaded = checkpoint === undefined ? undefined : this.loadCheckpoint(checkpoint);
    // When init fails, so does the image's load: init's error is the one to throw.
    loaded?.catch(() => undefined);
    try {
      this.tools = (await initialised).tools;
      await loaded;
    } finally {
      connection.settled?.();
    }
  }

  /** Replaces the worker with a fresh one holding `checkpoint` (the hard-kill recovery). */
  private async restartFrom(checkpoint: Checkpoint, reason: string, runId: number | null = null): Promise<void> {
    this.audit.emit({ type: 'sandbox.worker_restarted', runId, reason });
    this.connection.terminate();
    this.brokenReason = undefined;
    await this.start(checkpoint);
  }

  /**
   * Loads `checkpoint` into the (freshly started) worker: the mirror as image parts
   * (protocol/fs-image.ts; one message for most sandboxes) and the shell's state with the
   * last (the session shell starts from it at the next run).
   */
  private async loadCheckpoint(checkpoint: Checkpoint): Promise<void> {
    const parts = checkpoint.mirror.imageParts(this.budget());
    for (const [i, part] of parts.entries()) {
      const last = i === parts.length - 1;
      await this.connection.api.loadImage({ records: part.records ?? [], deleted: [], image: part.page, ...(last ? { shellState: checkpoint.shellState } : {}), last });
    }
    this.checkpoint = { ...checkpoint, mirror: checkpoint.mirror.clone() };
  }

  /** Runs mutating operations one at a time, each followed by a commit of its changes. */
  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(async () => {
      if (this.closed) throw new SandboxClosedError();
      if (this.brokenReason !== undefined) await this.restartFrom(this.checkpoint, this.brokenReason);
      return operation();
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Takes the worker's changes since the last commit, validates them on a copy of the
   * mirror, and makes that the checkpoint. A worker that breaks the protocol or the limits
   * is replaced by a fresh one at the previous checkpoint, and the error is thrown.
   */
  private async commit(session?: { shellState?: Uint8Array; cwd: string }, runId: number | null = null, firstBatch?: ChangeBatch): Promise<void> {
    const shellState = session?.shellState;
    let next: Mirror | undefined;
    const changed = new Set<number>();
    const deleted = new Set<number>();
    try {
      for (;;) {
        // The run's reply may have brought the first page already (RunRequest.changesBudget).
        const batch = firstBatch ?? (await this.connection.api.takeChanges(this.budget()));
        firstBatch = undefined;
        if (next === undefined && batch.done && batch.records.length === 0 && batch.deleted.length === 0) break;
        next ??= this.checkpoint.mirror.clone();
        next.apply(batch);
        for (const record of batch.records) changed.add(record.ino);
        for (const ino of batch.deleted) deleted.add(ino);
        if (batch.done) break;
      }
    } catch (error) {
      this.audit.emit({ type: 'persistence.rejected', runId, reason: (error as Error).message, limit: error instanceof LimitError ? error.limit : null });
      await this.restartFrom(this.checkpoint, `its changes were refused: ${(error as Error).message}`, runId);
      throw error;
    }
    if (changed.size > 0 || deleted.size > 0) this.audit.emit({ type: 'persistence.committed', runId, records: changed.size, deleted: deleted.size });
    const stateChanged = shellState !== undefined && shellState !== this.checkpoint.shellState;
    this.checkpoint = { mirror: next ?? this.checkpoint.mirror, shellState: shellState ?? this.checkpoint.shellState, cwd: session?.cwd ?? this.checkpoint.cwd };
    if (this.options.onCommit !== undefined && (changed.size > 0 || deleted.size > 0 || stateChanged)) {
      const mirror = this.checkpoint.mirror;
      const records = [...changed].filter((ino) => !deleted.has(ino)).map((ino) => mirror.get(ino)).filter((r): r is InodeRecord => r !== undefined);
      this.options.onCommit({ records, deleted: [...deleted], shellState: this.checkpoint.shellState });
    }
  }

  /** The whole session as it stands (files changed since boot and the shell's state). */
  exportState(): Promise<SessionState> {
    return this.exclusive(async () => ({ records: [...this.checkpoint.mirror.all()], shellState: this.checkpoint.shellState }));
  }

  /** Feeds the current interactive run's stdin (`null` closes it: EOF). */
  writeStdin(data: string | Uint8Array | null): Promise<void> {
    const runId = this.activeRunId;
    if (runId === undefined) return Promise.resolve();
    this.runClocks.get(runId)?.resume();
    return this.connection.api.writeStdin(runId, typeof data === 'string' ? encoder.encode(data) : data);
  }

  /** The terminal was resized: programs that ask for its size from now on see this one. */
  resizeTerminal(size: { cols: number; rows: number }): Promise<void> {
    return this.connection.api.resizeTerminal(size);
  }

  /**
   * Sends Ctrl-C (SIGINT) to the current run without the kill an aborted signal leads to:
   * a program that handles it goes on (Python raises KeyboardInterrupt, its REPL continues);
   * the others end as with any SIGINT.
   */
  interrupt(): Promise<void> {
    const runId = this.activeRunId;
    if (runId === undefined) return Promise.resolve();
    return this.connection.api.cancel(runId);
  }

  // ---- runs --------------------------------------------------------------------------------

  /**
   * Runs a shell command line (or, given an array, a program with arguments, without a
   * shell). Resolves with the result; rejects only for invalid calls (LimitError for a
   * command over limits.commandBytes, SandboxClosedError after destroy()).
   */
  run(command: string | string[], options: RunOptions = {}): Promise<RunResult> {
    const tooLong = typeof command === 'string' ? commandTooLong(command, this.limits.commandBytes) : undefined;
    if (tooLong !== undefined) {
      this.audit.emit({ type: 'limit.hit', runId: null, limit: 'commandBytes', value: this.limits.commandBytes });
      return Promise.reject(tooLong);
    }
    return this.exclusive(() => this.runNow(command, options));
  }

  private activeRunId: number | undefined;

  private async runNow(command: string | string[], options: RunOptions): Promise<RunResult> {
    const runId = this.nextRunId++;
    this.activeRunId = runId;
    this.audit.runStarted(runId, command);
    const started = performance.now();
    const timeoutMs = options.timeoutMs ?? this.limits.timeoutMs;
    const output = new RunOutput(this.limits, options);
    this.outputs.set(runId, output);
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    const settle: Array<() => void> = [];
    const outcome = await new Promise<Outcome>((resolve, reject) => {
      const finish = (value: Outcome): void => resolve(value);
      this.connection.api
        .run({
          runId,
          command,
          cwd: options.cwd,
          env: options.env,
          timeoutMs,
          stdin: typeof options.stdin === 'string' ? encoder.encode(options.stdin) : options.stdin,
          interactiveStdin: options.interactive === true,
          terminal: options.terminal === true,
          changesBudget: this.budget(),
          terminalSize: options.terminalSize,
        })
        .then((reply) => finish({ kind: 'reply', reply }), reject);
      // The hard kill's clock, paused while an interactive run waits for terminal input or
      // Python's interpreter loads (as the kernel's deadline is): a person reading a prompt
      // is not a runaway program, and neither is a download.
      let left = timeoutMs + HARD_KILL_GRACE_MS;
      let since = performance.now();
      let killTimer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => finish({ kind: 'timeout' }), left);
      this.runClocks.set(runId, {
        pause: () => {
          if (killTimer === undefined) return;
          clearTimeout(killTimer);
          killTimer = undefined;
          left -= performance.now() - since;
        },
        resume: () => {
          if (killTimer !== undefined) return;
          since = performance.now();
          killTimer = setTimeout(() => finish({ kind: 'timeout' }), Math.max(0, left));
        },
      });
      settle.push(() => {
        if (killTimer !== undefined) clearTimeout(killTimer);
        this.runClocks.delete(runId);
      });
      const connection = this.connection;
      void connection.died.then((reason) => finish({ kind: 'died', reason, limit: connection.endedByLimit }));
      void this.whenClosed.then(() => finish({ kind: 'died', reason: 'the sandbox was destroyed' }));
      const signal = options.signal;
      if (signal !== undefined) {
        const onAbort = (): void => {
          void this.connection.api.cancel(runId).catch(() => undefined);
          timers.push(setTimeout(() => finish({ kind: 'cancelled' }), HARD_KILL_GRACE_MS));
        };
        if (signal.aborted) onAbort();
        else {
          signal.addEventListener('abort', onAbort, { once: true });
          settle.push(() => signal.removeEventListener('abort', onAbort));
        }
      }
    }).finally(() => {
      this.activeRunId = undefined;
      for (const timer of timers) clearTimeout(timer);
      for (const undo of settle) undo();
      this.outputs.delete(runId);
    });
    // Destroyed meanwhile: no restart from the checkpoint, no result.
    if (this.closed) throw new SandboxClosedError('the sandbox was destroyed during this run');

    let exitCode: number;
    let errorClass: ErrorClass | null;
    let limit: RunResult['limit'];
    let note = '';
    if (outcome.kind === 'reply') {
      exitCode = outcome.reply.exitCode;
      errorClass = outcome.reply.errorClass;
      limit = outcome.reply.limit;
      try {
        // Only a shell command line moves the session's directory (an argv run has its own).
        await this.commit(typeof command === 'string' ? { shellState: outcome.reply.shellState, cwd: outcome.reply.cwd } : undefined, runId, outcome.reply.changes);
      } catch (error) {
        if (!(error instanceof AirlockError)) throw error;
        exitCode = exitCode === 0 ? 1 : exitCode;
        errorClass = error instanceof LimitError ? 'limit' : 'worker-restarted';
        if (error instanceof LimitError) limit = { name: error.limit, value: error.value };
        note = `airlock: ${error.message}; the sandbox was restored to its state before this command\n`;
      }
    } else {
      if (outcome.kind === 'timeout' || outcome.kind === 'cancelled') this.audit.emit({ type: 'sandbox.hard_killed', runId, reason: outcome.kind, timeoutMs });
      await this.restartFrom(this.checkpoint, outcome.kind === 'died' ? outcome.reason : `the run was hard-killed (${outcome.kind})`, runId);
      if (outcome.kind === 'timeout') {
        exitCode = 124;
        errorClass = 'timeout';
        note = `airlock: the command did not stop at its deadline (timeoutMs is ${timeoutMs}) and was killed; the sandbox was restored to its state before this command\n`;
      } else if (outcome.kind === 'cancelled') {
        exitCode = 130;
        errorClass = 'cancelled';
        note = 'airlock: the command did not stop when cancelled and was killed; the sandbox was restored to its state before this command\n';
      } else if (outcome.limit !== undefined) {
        // Ended from outside by a limit (the cgroup's OOM kill): as SIGKILL would, naming it.
        exitCode = 137;
        errorClass = 'limit';
        limit = outcome.limit;
        note = `airlock: ${outcome.reason}; the sandbox was restored to its state before this command\n`;
      } else {
        exitCode = 1;
        errorClass = 'worker-restarted';
        note = `airlock: ${outcome.reason}; the sandbox was restored to its state before this command\n`;
      }
    }
    if (note) output.add('stderr', encoder.encode(note));
    const stdoutBytes = output.bytes('stdout');
    const stderrBytes = output.bytes('stderr');
    const result: RunResult = {
      exitCode,
      stdout: decoder.decode(stdoutBytes),
      stderr: decoder.decode(stderrBytes),
      stdoutBytes,
      stderrBytes,
      truncated: output.truncated.stdout || output.truncated.stderr || (outcome.kind === 'reply' && (outcome.reply.truncated.stdout || outcome.reply.truncated.stderr)),
      durationMs: performance.now() - started,
      errorClass,
      cwd: outcome.kind === 'reply' && errorClass !== 'limit' && errorClass !== 'worker-restarted' ? outcome.reply.cwd : this.checkpoint.cwd,
    };
    if (limit !== undefined) result.limit = limit;
    this.auditRunEnd(runId, result, timeoutMs, {
      stdout: output.truncated.stdout || (outcome.kind === 'reply' && outcome.reply.truncated.stdout),
      stderr: output.truncated.stderr || (outcome.kind === 'reply' && outcome.reply.truncated.stderr),
    });
    return result;
  }

  /** The limits a run hit, then its end. */
  private auditRunEnd(runId: number, result: RunResult, timeoutMs: number, truncated: { stdout: boolean; stderr: boolean }): void {
    if (!this.audit.enabled) return;
    if (result.limit !== undefined) this.audit.emit({ type: 'limit.hit', runId, limit: result.limit.name, value: result.limit.value });
    if (result.errorClass === 'timeout') this.audit.emit({ type: 'limit.hit', runId, limit: 'timeoutMs', value: timeoutMs });
    if (truncated.stdout) this.audit.emit({ type: 'limit.hit', runId, limit: 'stdoutBytes', value: this.limits.stdoutBytes });
    if (truncated.stderr) this.audit.emit({ type: 'limit.hit', runId, limit: 'stderrBytes', value: this.limits.stderrBytes });
    this.audit.runEnded(runId, result);
  }

  // ---- files -------------------------------------------------------------------------------

  readFile(path: string): Promise<Uint8Array> {
    return this.read(() => this.readFileNow(path));
  }

  private async readFileNow(path: string): Promise<Uint8Array> {
    const info = await this.connection.api.stat(path);
    const budget = this.budget();
    if (info.kind !== 'file' || info.size <= budget) return this.connection.api.readFile(path);
    const out = new Uint8Array(info.size);
    for (let offset = 0; offset < info.size; offset += budget) {
      out.set(await this.connection.api.readFile(path, { offset, length: budget }), offset);
    }
    return out;
  }

  async readTextFile(path: string): Promise<string> {
    return decoder.decode(await this.readFile(path));
  }

  writeFile(path: string, content: string | Uint8Array, options: { mode?: number; parents?: boolean } = {}): Promise<void> {
    const data = typeof content === 'string' ? encoder.encode(content) : content;
    return this.exclusive(async () => {
      const budget = this.budget();
      // Pieces are copies: posting a view would clone the whole buffer with each piece.
      await this.connection.api.writeFile(path, data.length > budget ? data.slice(0, budget) : data, options);
      for (let offset = budget; offset < data.length; offset += budget) {
        await this.connection.api.writeFile(path, data.slice(offset, offset + budget), { offset });
      }
      await this.commit();
    });
  }

  readDir(path: string): Promise<DirEntry[]> {
    return this.read(() => this.connection.api.readDir(path));
  }

  stat(path: string, options: { follow?: boolean } = {}): Promise<StatResult> {
    return this.read(() => this.connection.api.stat(path, options));
  }

  mkdir(path: string, options: { recursive?: boolean; mode?: number } = {}): Promise<void> {
    return this.exclusive(async () => {
      await this.connection.api.mkdir(path, options);
      await this.commit();
    });
  }

  /** Creates a symlink at `path` holding `target` (copied as it is, never resolved). */
  symlink(target: string, path: string): Promise<void> {
    return this.exclusive(async () => {
      await this.connection.api.symlink(target, path);
      await this.commit();
    });
  }

  rm(path: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
    return this.exclusive(async () => {
      await this.connection.api.rm(path, options);
      await this.commit();
    });
  }

  /**
   * Makes `source` (path → content) visible read-only at `at`, as a snapshot taken now.
   * Mounted content does not count against fsBytes.
   */
  mount(at: string, source: MountSource | MountEntry[]): Promise<void> {
    const entries: MountEntry[] = Array.isArray(source)
      ? source
      : Object.entries(source).map(([path, content]) => ({ path, kind: 'file', data: typeof content === 'string' ? encoder.encode(content) : content }));
    return this.exclusive(async () => {
      let bytes = 0;
      for (const entry of entries) bytes += entry.data?.length ?? 0;
      if (bytes > this.budget()) throw new LimitError('messageBytes', this.limits.messageBytes, `a mount of ${bytes} bytes does not fit in one message (messageBytes is ${this.limits.messageBytes})`);
      await this.connection.api.mount(at, entries);
      this.checkpoint.mirror.addHostContent(bytes, entries.length + 1);
      await this.commit();
    });
  }

  // ---- snapshots -----------------------------------------------------------------------------

  /** Saves the current state (files and shell state); returns an id for restore(). */
  snapshot(): Promise<number> {
    return this.exclusive(async () => {
      const id = this.nextSnapshotId++;
      await this.connection.api.snapshot(id);
      this.snapshots.set(id, { ...this.checkpoint, mirror: this.checkpoint.mirror.clone() });
      return id;
    });
  }

  restore(id: number): Promise<void> {
    return this.exclusive(async () => {
      const snap = this.snapshots.get(id);
      if (snap === undefined) throw new AirlockError('ENOSNAPSHOT', `no snapshot ${id} in this sandbox`);
      const restoredInPlace = await this.connection.api.restore(id);
      if (restoredInPlace) this.checkpoint = { ...snap, mirror: snap.mirror.clone() };
      else await this.restartFrom(snap, `restoring snapshot ${id}, which this worker does not have`);
      this.audit.emit({ type: 'sandbox.restored', snapshotId: id, inPlace: restoredInPlace });
    });
  }

  /** A new, independent sandbox with this one's files and shell state. */
  fork(): Promise<Sandbox> {
    return this.exclusive(async () => {
      const Kind = this.constructor as new (platform: Platform, options: SandboxOptions) => Sandbox;
      const copy = new Kind(this.platform, { ...this.options, sessionId: undefined });
      // A ready spare has had init (spare-child.ts): the checkpoint's image crosses in one message.
      await copy.start(this.checkpoint, true);
      copy.audit.created({ allowedTools: this.options.allowedTools, networkHosts: this.options.network?.allowedHosts, forkedFrom: this.sessionId, fromState: true, limits: copy.limits });
      this.audit.emit({ type: 'sandbox.forked', child: copy.sessionId });
      return copy;
    });
  }

  /** The worker's report on its own hardening: no forbidden globals, no code generation. */
  selfCheck(): Promise<RealmReport> {
    return this.read(() => this.connection.api.selfCheck());
  }

  /** Ends the worker. Later calls reject with SandboxClosedError. */
  async destroy(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.notifyClosed();
    this.connection.terminate();
    this.audit.emit({ type: 'sandbox.destroyed' });
    this.audit.flush();
  }

  /** Reads go straight to the worker (even during a run), unless it must be restarted first. */
  private async read<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closed) throw new SandboxClosedError();
    if (this.brokenReason !== undefined) return this.exclusive(operation);
    return operation();
  }
}
