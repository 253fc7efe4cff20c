// What runs inside a foreign program's worker (any platform): it keeps the compiled modules
// the kernel has sent it, and for each run instantiates one with the shared memory the
// kernel made and WASI imports that are only stubs — each posts its function's index and
// arguments over the call channel and returns the kernel's errno. Then it calls `_start`
// and reports how the run ended. The kernel does everything else; this realm holds no
// kernel state, and a worker runs one process at a time.

import { ForeignCallClient, ForeignUnwind } from './call-channel.js';
import { SHARED_MEMORY_IMPORT } from './foreign-module.js';
import { WASI_MODULE, WASI_SIGNATURES } from './wasi-signatures.js';

/** The kernel's order to run a process: a module (sent once per worker) and its memory. */
export interface ForeignRunOrder {
  op: 'run';
  moduleId: number;
  /** Present the first time this worker gets the module. */
  module?: WebAssembly.Module;
  /** Undefined for a module without a memory. */
  memory?: WebAssembly.Memory;
}

/** What a platform passes to a new foreign-program worker. */
export interface ForeignWorkerInit {
  channel: SharedArrayBuffer;
}

export class ForeignWorkerRuntime {
  private readonly client: ForeignCallClient;
  private readonly modules = new Map<number, WebAssembly.Module>();
  private readonly stubs: Record<string, (...args: Array<number | bigint>) => number>;

  constructor(init: ForeignWorkerInit) {
    this.client = new ForeignCallClient(init.channel);
    const client = this.client;
    this.stubs = {};
    WASI_SIGNATURES.forEach(([name], index) => {
      this.stubs[name] = (...args) => client.call(index, args);
    });
  }

  /** Runs one process to its end and reports the end over the channel. */
  run(order: ForeignRunOrder): void {
    if (order.module !== undefined) this.modules.set(order.moduleId, order.module);
    const module = this.modules.get(order.moduleId);
    try {
      if (module === undefined) throw new Error(`module ${order.moduleId} was never sent to this worker`);
      const imports: WebAssembly.Imports = { [WASI_MODULE]: this.stubs };
      if (order.memory !== undefined) imports[SHARED_MEMORY_IMPORT.module] = { [SHARED_MEMORY_IMPORT.name]: order.memory };
      const instance = new WebAssembly.Instance(module, imports);
      (instance.exports._start as () => void)();
      this.client.end({ how: 'returned' });
    } catch (error) {
      if (error instanceof ForeignUnwind) this.client.end({ how: 'unwound' });
      else this.client.end({ how: 'trapped', message: describe(error), unreachable: isUnreachable(error) });
    }
  }
}

function isUnreachable(error: unknown): boolean {
  return error instanceof WebAssembly.RuntimeError && /unreachable/.test(error.message);
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
