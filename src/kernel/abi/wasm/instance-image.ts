// What a fresh instance of a module looks like before its first call, kept so that an
// instance whose process has ended can be given to the next process of the same program
// instead of instantiating again (≈0.2-0.3 ms for coreutils, most of a small process's
// start; restoring is ≈0.03 ms). Restoring puts back every byte and every global the
// program can change, so nothing of one process is visible to the next:
//
// - memory: the bytes the data segments wrote (the non-zero range of a fresh instance's
//   memory, copied once) and zero everywhere else, up to the memory's current size;
// - globals: each exported global back to its value after instantiation. A module is only
//   reused if it exports `__stack_pointer` (scripts/build-wasm.mjs links it so); wasm-ld
//   and Binaryen's asyncify add no other mutable globals but asyncify's own state, which
//   is normal again whenever the program is not unwinding or rewinding (checked before
//   reuse), and its data pointer, which every start of an unwind or rewind sets before it
//   is read;
// - the table: Rust's code never changes it (no reference-types instructions), and a module
//   that imports or exports a table, or a memory other than env.memory, is not reused.

/** The export that marks a module as reusable: its stack pointer can be reset. */
const STACK_POINTER = '__stack_pointer';

export class InstanceImage {
  private constructor(
    /** Where the non-zero bytes of a fresh instance's memory start. */
    private readonly start: number,
    private readonly bytes: Uint8Array,
    private readonly globals: ReadonlyArray<readonly [string, WebAssembly.Global['value']]>,
  ) {}

  /** Whether instances of `module` can be restored by an image (see the header). */
  static supports(module: WebAssembly.Module): boolean {
    const exports = WebAssembly.Module.exports(module);
    const imports = WebAssembly.Module.imports(module);
    return (
      exports.some((entry) => entry.kind === 'global' && entry.name === STACK_POINTER) &&
      !exports.some((entry) => entry.kind === 'table' || entry.kind === 'memory') &&
      !imports.some((entry) => entry.kind === 'table' || entry.kind === 'global' || (entry.kind === 'memory' && !(entry.module === 'env' && entry.name === 'memory')))
    );
  }

  /**
   * The image of an instance made a moment ago over a zeroed memory, before any call into
   * it: its memory then holds only what the data segments wrote.
   */
  static of(exports: WebAssembly.Exports, memory: WebAssembly.Memory): InstanceImage {
    const words = new Int32Array(memory.buffer);
    let first = 0;
    while (first < words.length && words[first] === 0) first++;
    let last = words.length;
    while (last > first && words[last - 1] === 0) last--;
    const bytes = new Uint8Array(memory.buffer, first * 4, (last - first) * 4).slice();
    const globals: Array<readonly [string, WebAssembly.Global['value']]> = [];
    for (const [name, value] of Object.entries(exports)) {
      if (value instanceof WebAssembly.Global) globals.push([name, value.value]);
    }
    return new InstanceImage(first * 4, bytes, globals);
  }

  /** Puts an ended process's instance back as `of()` saw a fresh one. */
  restore(exports: WebAssembly.Exports, memory: WebAssembly.Memory): void {
    const all = new Uint8Array(memory.buffer);
    all.fill(0, 0, this.start);
    all.set(this.bytes, this.start);
    all.fill(0, this.start + this.bytes.length);
    for (const [name, value] of this.globals) {
      const global = exports[name] as WebAssembly.Global;
      // Only mutable globals can differ (setting an immutable one throws).
      if (global.value !== value) global.value = value;
    }
  }
}
