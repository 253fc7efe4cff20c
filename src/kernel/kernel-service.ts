// The KernelApi the worker exposes to the host: one kernel, created by init(). Output is
// sent as events while a run goes on, batched so a chatty program does not post a
// message per write; all of a run's output events are sent before its reply.

import { LimitError, ProtocolError } from '../protocol/errors.js';
import {
  PROTOCOL_VERSION,
  type DirEntry,
  type KernelApi,
  type KernelInit,
  type RealmReport,
  type RunReply,
  type RunRequest,
  type StatResult,
  type WorkerEvent,
  type WriteFileOptions,
} from '../protocol/messages.js';
import type { ChangeBatch, InodeRecord, MountEntry } from '../protocol/records.js';
import { Kernel } from './kernel.js';
import type { ExternalProgram } from './proc/module-registry.js';
import type { NetHead } from '../protocol/network.js';

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

  constructor(
    private readonly emit: (event: WorkerEvent) => void,
    /** The globals the worker entry removed (to report whether any came back). */
    private readonly forbiddenGlobals: readonly string[] = [],
    /** Programs this worker provides itself (Python), built from the init message. */
    private readonly externals: (init: KernelInit) => Array<{ tools: string[]; program: ExternalProgram }> = () => [],
  ) {
    this.output = new OutputBatcher(emit);
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
    this.kernel = new Kernel(init, {
      output: (runId, stream, data) => this.output.add(runId, stream, data),
      netRequest: (id, request) => {
        // Output written before the request must reach the host first.
        this.output.flush();
        this.emit({ airlockEvent: 'net-request', id, request });
      },
    }, this.externals(init));
    return { tools: this.kernel.modules.tools() };
  }

  async run(request: RunRequest): Promise<RunReply> {
    const kernel = this.k;
    if (typeof request.command === 'string') {
      const bytes = new TextEncoder().encode(request.command).length;
      if (bytes > kernel.limits.commandBytes) throw new LimitError('commandBytes', kernel.limits.commandBytes, `command is ${bytes} bytes; the limit commandBytes is ${kernel.limits.commandBytes}`);
    }
    try {
      return await kernel.run(request);
    } finally {
      this.output.flush();
    }
  }

  async cancel(runId: number): Promise<void> {
    this.k.cancel(runId);
  }

  async writeStdin(runId: number, data: Uint8Array | null): Promise<void> {
    this.k.writeStdin(runId, data);
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

  async loadImage(page: { records: InodeRecord[]; deleted: number[]; shellState?: Uint8Array; last: boolean }): Promise<void> {
    this.k.loadImage(page);
  }
}
