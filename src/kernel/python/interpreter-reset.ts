// Puts a Python worker's interpreter back to the moment before its first process ran, so
// the next `python3` reuses the worker instead of starting one (issue 21). The image is
// taken once per worker, after our own setup (prelude, driver, kernel filesystem mounted)
// and before any process-specific step; a reset makes the interpreter that image again:
//
// - wasm: the linear memory (bytes copied back, growth zeroed), the mutable globals (the
//   stack pointer, the temp-return register, the 280 GOT entries; the stack limits are
//   checked), the function table and the two hiwire tables (the JS values Python objects
//   refer to), entry by entry;
// - JS: what the interpreter's imports may change between runs — Emscripten's descriptor
//   table, its node cache (nameTable and each cached node's links), the cwd, the inode
//   counter — is restored; MEMFS (Pyodide's private /lib and the other in-memory files)
//   is not restorable cheaply, so any change to it is detected (its node and stream
//   operations are wrapped) and makes the worker unusable.
//
// What cannot be put back with certainty makes reset() answer a reason, and the worker is
// discarded (a fresh one is started): an import called after the image other than the ones
// whose effects are listed above (interpreter-seal.ts keeps the account: timers, ctypes
// callbacks, mmap, pipes of Emscripten's own, name lookups, exit), a table that grew, a
// function-table entry that changed, a seal breach, a MEMFS change.

import type { EmFS, EmNode, EmStream } from './emscripten-types.js';
import type { InterpreterSeal } from './interpreter-seal.js';

/** The instance's parts a reset reads and writes (pyodide-boot.ts collects them). */
export interface WasmParts {
  instance: WebAssembly.Instance;
  /** The GOT entries (imported mutable globals), in import order. */
  got: WebAssembly.Global[];
}

type Exports = Record<string, unknown>;
type RawFunction = (...args: number[]) => number;
type CachedNode = EmNode & { name_next?: EmNode };

interface NodeLinks {
  node: CachedNode;
  parent: EmNode;
  name: string;
  mode: number;
  mounted: EmNode['mounted'];
  next: EmNode | undefined;
}

interface StreamImage {
  stream: EmStream;
  own: Record<string, unknown>;
  shared: Record<string, unknown>;
}

/** The MEMFS operations that change a node or file (reads do not). */
const MEMFS_MUTATIONS = new Set(['setattr', 'mknod', 'rename', 'unlink', 'rmdir', 'symlink', 'write', 'allocate', 'mmap', 'msync']);

function exportedFunction(exports: Exports, name: string): RawFunction {
  const value = exports[name];
  if (typeof value !== 'function') throw new Error(`the interpreter exports no ${name}`);
  return value as RawFunction;
}

/** Every entry of a table read through `get` (which traps past its end), as Pyodide reads hiwire's. */
function readAll(get: (index: number) => unknown): unknown[] {
  const entries: unknown[] = [];
  for (;;) {
    let value: unknown;
    try {
      value = get(entries.length);
    } catch {
      return entries;
    }
    entries.push(value);
  }
}

function ownFields(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value));
}

function putBack(target: object, fields: Record<string, unknown>): void {
  const record = target as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!(key in fields)) delete record[key];
  Object.assign(record, fields);
}

/**
 * Marks MEMFS changes: its operation tables are shared by every MEMFS node, so wrapping
 * their mutating members in place covers the nodes that exist and those made later.
 */
class MemfsWatch {
  changed: string | undefined;
  armed = false;

  constructor(memfs: unknown) {
    const tables = (memfs as { ops_table?: Record<string, { node?: Record<string, unknown>; stream?: Record<string, unknown> }> } | undefined)?.ops_table;
    if (tables === undefined || tables === null) throw new Error('MEMFS has no operation tables yet');
    const done = new Set<object>();
    for (const kind of Object.values(tables)) {
      for (const ops of [kind.node, kind.stream]) {
        if (ops === undefined || done.has(ops)) continue;
        done.add(ops);
        for (const [name, original] of Object.entries(ops)) {
          if (!MEMFS_MUTATIONS.has(name) || typeof original !== 'function') continue;
          const watch = this;
          ops[name] = function (this: unknown, ...args: unknown[]): unknown {
            if (watch.armed) watch.changed ??= `MEMFS ${name}`;
            return (original as (...a: unknown[]) => unknown).apply(this, args);
          };
        }
      }
    }
  }
}

export class InterpreterImage {
  private readonly memory: WebAssembly.Memory;
  private readonly bytes: Uint8Array;
  private readonly stackPointer: WebAssembly.Global;
  private readonly stackPointerValue: unknown;
  private readonly stackLimits: [number, number];
  private readonly tempRet: number;
  private readonly gotValues: unknown[];
  private readonly functions: WebAssembly.Table;
  private readonly functionEntries: unknown[];
  private readonly hiwireEntries: unknown[];
  private readonly immortalCount: number;
  private readonly streams: Array<StreamImage | null>;
  private readonly nameTable: Array<CachedNode | undefined>;
  private readonly nodes: NodeLinks[] = [];
  private readonly currentPath: string;
  private readonly nextInode: number;
  private readonly memfs: MemfsWatch;
  private readonly exports: Exports;

  /** Takes the image now: call it with nothing of a process in the interpreter yet. */
  constructor(private readonly parts: WasmParts, private readonly FS: EmFS, memfs: unknown, private readonly seal: InterpreterSeal) {
    const exports = parts.instance.exports as Exports;
    this.exports = exports;
    this.memory = exports.memory as WebAssembly.Memory;
    this.bytes = new Uint8Array(this.memory.buffer).slice();
    this.stackPointer = exports.__stack_pointer as WebAssembly.Global;
    this.stackPointerValue = this.stackPointer.value;
    this.stackLimits = this.readStackLimits();
    this.tempRet = exportedFunction(exports, '_emscripten_tempret_get')();
    this.gotValues = parts.got.map((entry) => entry.value as unknown);
    this.functions = exports.__indirect_function_table as WebAssembly.Table;
    this.functionEntries = Array.from({ length: this.functions.length }, (_, index) => this.functions.get(index));
    this.hiwireEntries = readAll(exportedFunction(exports, '_hiwire_get') as (index: number) => unknown);
    this.immortalCount = readAll(exportedFunction(exports, '_hiwire_immortal_get') as (index: number) => unknown).length;
    this.streams = FS.streams.map((stream) => (stream ? { stream, own: ownFields(stream), shared: ownFields(stream.shared) } : null));
    this.nameTable = [...(FS.nameTable as Array<CachedNode | undefined>)];
    for (const head of this.nameTable) {
      for (let node = head; node !== undefined && node !== null; node = node.name_next as CachedNode | undefined) {
        this.nodes.push({ node, parent: node.parent, name: node.name, mode: node.mode, mounted: node.mounted, next: node.name_next });
      }
    }
    this.currentPath = FS.currentPath;
    this.nextInode = (FS as unknown as { nextInode: number }).nextInode;
    this.memfs = new MemfsWatch(memfs);
    this.arm();
  }

  /** Starts the account of what a run changes. */
  private arm(): void {
    this.memfs.changed = undefined;
    this.memfs.armed = true;
    this.seal.trackImports();
  }

  private readStackLimits(): [number, number] {
    return [exportedFunction(this.exports, 'emscripten_stack_get_base')(), exportedFunction(this.exports, 'emscripten_stack_get_end')()];
  }

  /** Why the interpreter cannot be put back exactly, or undefined if it can. */
  private unrestorable(): string | undefined {
    if (this.seal.breach !== undefined) return 'the seal refused a call';
    const calls = this.seal.untrackedCalls;
    if (calls.size > 0) return `the run called ${[...calls].join(', ')}`;
    if (this.memfs.changed !== undefined) return `the run changed Pyodide's private files (${this.memfs.changed})`;
    if (this.functions.length !== this.functionEntries.length) return 'the function table grew';
    for (let index = 0; index < this.functionEntries.length; index++) {
      if (this.functions.get(index) !== this.functionEntries[index]) return `function table entry ${index} changed`;
    }
    const hiwire = readAll(exportedFunction(this.exports, '_hiwire_get') as (index: number) => unknown);
    if (hiwire.length !== this.hiwireEntries.length) return 'the hiwire table grew';
    const immortals = readAll(exportedFunction(this.exports, '_hiwire_immortal_get') as (index: number) => unknown);
    if (immortals.length !== this.immortalCount) return 'the immortal hiwire table grew';
    const [base, end] = this.readStackLimits();
    if (base !== this.stackLimits[0] || end !== this.stackLimits[1]) return 'the stack limits changed';
    return undefined;
  }

  /**
   * Makes the interpreter the image again. Returns undefined when done, or why it cannot
   * be (the worker must then be discarded; nothing was changed). Makes no kernel call.
   */
  reset(): string | undefined {
    this.memfs.armed = false;
    const reason = this.unrestorable();
    if (reason !== undefined) return reason;
    const hiwireSet = exportedFunction(this.exports, '_hiwire_set') as (index: number, value: unknown) => number;
    this.hiwireEntries.forEach((value, index) => {
      if (hiwireSet(index, value) < 0) throw new Error(`hiwire entry ${index} could not be restored`);
    });
    const heap = new Uint8Array(this.memory.buffer);
    heap.set(this.bytes);
    heap.fill(0, this.bytes.length);
    this.stackPointer.value = this.stackPointerValue;
    exportedFunction(this.exports, '_emscripten_tempret_set')(this.tempRet);
    this.parts.got.forEach((entry, index) => {
      if (entry.value !== this.gotValues[index]) entry.value = this.gotValues[index];
    });
    this.resetFs();
    this.arm();
    return undefined;
  }

  private resetFs(): void {
    const FS = this.FS;
    FS.streams.length = 0;
    this.streams.forEach((image, fd) => {
      if (image === null) {
        FS.streams[fd] = null;
        return;
      }
      putBack(image.stream.shared, image.shared);
      putBack(image.stream, image.own);
      FS.streams[fd] = image.stream;
    });
    const table = FS.nameTable;
    table.length = 0;
    this.nameTable.forEach((head, index) => {
      table[index] = head;
    });
    for (const links of this.nodes) {
      links.node.parent = links.parent;
      links.node.name = links.name;
      links.node.mode = links.mode;
      links.node.mounted = links.mounted;
      links.node.name_next = links.next;
    }
    FS.currentPath = this.currentPath;
    (FS as unknown as { nextInode: number }).nextInode = this.nextInode;
  }
}
