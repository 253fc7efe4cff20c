// The KernelApi the worker exposes to the host: one kernel, created by init(). Output is
// sent as events while a run goes on, batched so a chatty program does not post a
// message per write; all of a run's output events are sent before its reply.

import { ProtocolError } from '../protocol/errors.js';
import { commandTooLong } from '../protocol/limits.js';
import {
  PROTOCOL_VERSION,
  type DirEntry,
  type KernelApi,
  type KernelInit,
  type ModuleDelivery,
  type RealmReport,
  type RunReply,
  type RunRequest,
  type StatResult,
  type WorkerEvent,
  type WriteFileOptions,
} from '../protocol/messages.js';
import type { ChangeBatch, InodeRecord, MountEntry } from '../protocol/records.js';
import { Kernel } from './kernel.js';
import { loadImagePage, warmImageLoading } from './kernel-records.js';
import type { ImagePage } from '../protocol/fs-image.js';
import type { ExternalProgram } from './sys/external-program.js';
import type { ForeignWorkerFactory } from './abi/foreign/foreign-program.js';
import type { NetHead } from '../protocol/network.js';
import { RefusalTally } from './sys/refusal-tally.js';
import { ExtensionCalls } from './extensions/extension-calls.js';

const FLUSH_BYTES = 64 * 1024;

class OutputBatcher {
  private chunks: Array<{ runId: number; stream: 'stdout' | 'stderr'; data: Uint8Array }> = [];
  private bytes = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly emit: (event: WorkerEvent) => void) {}

  add(runId: number, stream: 'stdout' | 'stderr', data: Uint8Array): void {
    const last = this.chunks[this.chunks.length - 1];
    if (last !== undefined && last.runId === runId && last.stream === stream) {
      const merged = new Uint8Array(last.data.length + data.length);
      merged.set(last.data);
      merged.set(data, last.data.length);
      last.data = merged;
    } else {
      this.chunks.push({ runId, stream, data });
    }
    this.bytes += data.length;
    if (this.bytes >= FLUSH_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), 8);
  }

  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const chunk of this.chunks) this.emit({ airlockEvent: 'output', ...chunk });
    this.chunks = [];
    this.bytes = 0;
  }
}

export class KernelService implements KernelApi {
  private kernel: Kernel | undefined;
  private readonly output: OutputBatcher;
  private readonly refusals: RefusalTally;
  private readonly extensions: ExtensionCalls;

  constructor(
    private readonly emit: (event: WorkerEvent) => void,
    /** The globals the worker entry removed (to report whether any came back). */
    private readonly forbiddenGlobals: readonly string[] = [],
    /** Programs this worker provides itself (Python), built from the init message. */
    private readonly externals: (init: KernelInit) => Array<{ tools: string[]; program: ExternalProgram }> = () => [],
    /** Starts the workers foreign WASI programs run in; undefined where none can start. */
    private readonly foreignWorkers?: ForeignWorkerFactory,
  ) {
    this.output = new OutputBatcher(emit);
    this.refusals = new RefusalTally((runId, refusals) => emit({ airlockEvent: 'refusals', runId, refusals }));
    this.extensions = new ExtensionCalls((event) => {
      // What the run wrote before the call reaches the host first.
      this.output.flush();
      emit(event);
    });
  }

  private get k(): Kernel {
    if (this.kernel === undefined) throw new ProtocolError('the kernel is not initialised');
    return this.kernel;
  }

  async init(init: KernelInit): Promise<{ tools: string[] }> {
    if (init.protocolVersion !== PROTOCOL_VERSION) {
      throw new ProtocolError(`protocol version ${init.protocolVersion} is not supported (this kernel speaks ${PROTOCOL_VERSION})`);
    }
    if (this.kernel !== undefined) throw new ProtocolError('the kernel is already initialised');
    const externals = this.externals(init);
    // Every process learns the extensions' names (Python's airlock_extensions reads them).
    if ((init.extensions ?? []).length > 0) init = { ...init, env: { AIRLOCK_EXTENSIONS: (init.extensions ?? []).map((decl) => decl.name).join(' '), ...init.env } };
    this.kernel = new Kernel(init, {
      output: (runId, stream, data) => this.output.add(runId, stream, data),
      netRequest: (id, request) => {
        // Output written before the request must reach the host first.
        this.output.flush();
        this.emit({ airlockEvent: 'net-request', id, request });
      },
      stdinWanted: (runId) => {
        // The program's prompt (written before it reads) must reach the host first.
        this.output.flush();
        this.emit({ airlockEvent: 'stdin-wanted', runId });
      },
      refused: (refusal) => this.refusals.add(refusal),
      packageReported: (report) => this.emit({ airlockEvent: 'package', report }),
      runClock: (runId, held) => this.emit({ airlockEvent: 'run-clock', runId, held }),
      terminalMode: (runId, flags) => {
        // What the program wrote before changing the mode is shown in the old mode.
        this.output.flush();
        this.emit({ airlockEvent: 'terminal-mode', runId, flags });
      },
      ...(init.traceExec === true ? { exec: (path: string, argv: string[]) => this.emit({ airlockEvent: 'exec', path, argv }) } : {}),
    }, [...externals, ...this.extensionPrograms(init, externals)], this.foreignWorkers);
    return { tools: this.kernel.programs.tools() };
  }

  async provideModules(delivery: ModuleDelivery): Promise<void> {
    this.k.provideModules(delivery);
  }

  /** The extensions' commands; a name that is already a tool is refused, never replaced. */
  private extensionPrograms(init: KernelInit, externals: Array<{ tools: string[] }>): ReturnType<ExtensionCalls['programs']> {
    const decls = init.extensions ?? [];
    const taken = new Set([...init.modules.flatMap((module) => module.tools), ...externals.flatMap((external) => external.tools), 'bash', 'sh']);
    for (const decl of decls) if (taken.has(decl.name)) throw new ProtocolError(`extension ${decl.name}: a tool of that name is already installed`);
    return this.extensions.programs(decls);
  }

  async extensionRead(callId: number, max: number): Promise<Uint8Array> {
    return this.extensions.read(callId, max);
  }

  async extensionWrite(callId: number, stream: 'stdout' | 'stderr', data: Uint8Array): Promise<void> {
    return this.extensions.write(callId, stream, data);
  }

  async extensionExit(callId: number, status: number, output?: { stdout?: Uint8Array; stderr?: Uint8Array }): Promise<void> {
    this.extensions.exit(callId, status, output);
  }

  async run(request: RunRequest): Promise<RunReply> {
    const kernel = this.k;
    const tooLong = typeof request.command === 'string' ? commandTooLong(request.command, kernel.limits.commandBytes) : undefined;
    if (tooLong !== undefined) throw tooLong;
    this.refusals.setRun(request.runId);
    try {
      return await kernel.run(request);
    } finally {
      this.output.flush();
      // The run's refusals reach the host before its reply.
      this.refusals.setRun(null);
    }
  }

  async cancel(runId: number): Promise<void> {
    this.k.cancel(runId);
  }

  async writeStdin(runId: number, data: Uint8Array | null): Promise<void> {
    this.k.writeStdin(runId, data);
  }

  async resizeTerminal(size: { cols: number; rows: number }): Promise<void> {
    this.k.resizeTerminal(size);
  }

  async readFile(path: string, range?: { offset: number; length: number }): Promise<Uint8Array> {
    const data = this.k.fs.readFile(path);
    return range === undefined ? data : data.slice(range.offset, range.offset + range.length);
  }

  async writeFile(path: string, data: Uint8Array, options?: WriteFileOptions): Promise<void> {
    this.k.fs.writeFile(path, data, options);
  }

  async readDir(path: string): Promise<DirEntry[]> {
    return this.k.fs.readDir(path);
  }

  async mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<void> {
    this.k.fs.mkdir(path, options);
  }

  async symlink(target: string, path: string): Promise<void> {
    this.k.fs.symlink(target, path);
  }

  async stat(path: string, options?: { follow?: boolean }): Promise<StatResult> {
    return this.k.fs.stat(path, options);
  }

  async rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
    this.k.fs.rm(path, options);
  }

  async mount(at: string, entries: MountEntry[]): Promise<void> {
    this.k.fs.mount(at, entries);
  }

  async snapshot(id: number): Promise<void> {
    this.k.snapshot(id);
  }

  async restore(id: number): Promise<boolean> {
    return this.k.restore(id);
  }

  async dropSnapshot(id: number): Promise<void> {
    this.k.dropSnapshot(id);
  }

  async takeChanges(budgetBytes: number): Promise<ChangeBatch> {
    return this.k.takeChanges(budgetBytes);
  }

  async selfCheck(): Promise<RealmReport> {
    const scope = globalThis as unknown as Record<string, unknown>;
    let codeGeneration: RealmReport['codeGeneration'] = 'allowed';
    try {
      // An indirect eval: the realm must refuse it (CSP / --disallow-code-generation-from-strings).
      (0, eval)('0');
    } catch {
      codeGeneration = 'blocked';
    }
    return { reachableGlobals: this.forbiddenGlobals.filter((name) => scope[name] !== undefined), codeGeneration };
  }

  async netHead(id: number, head: NetHead): Promise<void> {
    this.k.net.deliverHead(id, head);
  }

  async netBody(id: number, chunk: Uint8Array, done: boolean): Promise<void> {
    this.k.net.deliverBody(id, chunk, done);
  }

  async warmImageLoading(): Promise<void> {
    warmImageLoading();
  }

  async loadImage(page: { records: InodeRecord[]; deleted: number[]; image?: ImagePage; shellState?: Uint8Array; last: boolean }): Promise<void> {
    if (page.image !== undefined) loadImagePage(this.k.vfs, page.image);
    this.k.loadImage(page);
  }
}
