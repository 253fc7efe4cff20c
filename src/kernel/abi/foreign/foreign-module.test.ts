// The module check and rewrite of foreign WASI programs (foreign-module.ts) on small modules
// assembled here: what is refused and how the message names it, and the shared-memory
// rewrite producing a module that compiles and imports its memory.

import { describe, expect, it } from 'vitest';
import { ForeignModuleError, SHARED_MEMORY_IMPORT, inspectForeignModule, shareMemory } from './foreign-module.js';

const I32 = 0x7f;
const I64 = 0x7e;

function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

const name = (text: string): number[] => [...leb(text.length), ...new TextEncoder().encode(text)];
const section = (id: number, content: number[]): number[] => [id, ...leb(content.length), ...content];
const vector = (items: number[][]): number[] => [...leb(items.length), ...items.flat()];

interface Shape {
  types?: Array<{ params: number[]; results: number[] }>;
  /** [module, name, kind bytes...] */
  imports?: Array<[string, string, number[]]>;
  memory?: number[];
  start?: boolean;
}

/** A module with the given types, imports and memory, exporting a `_start` that does nothing. */
function module(shape: Shape): Uint8Array {
  const types = [...(shape.types ?? []), { params: [], results: [] }];
  const startType = types.length - 1;
  const importedFunctions = (shape.imports ?? []).filter(([, , kind]) => kind[0] === 0).length;
  const bytes = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  bytes.push(...section(1, vector(types.map((t) => [0x60, ...vector(t.params.map((p) => [p])), ...vector(t.results.map((r) => [r]))]))));
  if (shape.imports !== undefined) bytes.push(...section(2, vector(shape.imports.map(([m, n, kind]) => [...name(m), ...name(n), ...kind]))));
  bytes.push(...section(3, vector([leb(startType)])));
  if (shape.memory !== undefined) bytes.push(...section(5, vector([shape.memory])));
  if (shape.start !== false) bytes.push(...section(7, vector([[...name('_start'), 0x00, ...leb(importedFunctions)]])));
  bytes.push(...section(10, vector([[2, 0, 0x0b]])));
  return new Uint8Array(bytes);
}

function refusal(bytes: Uint8Array): string {
  try {
    inspectForeignModule(bytes);
  } catch (error) {
    if (error instanceof ForeignModuleError) return error.message;
    throw error;
  }
  return 'accepted';
}

const fdWrite = { params: [I32, I32, I32, I32], results: [I32] };

describe('foreign module check', () => {
  it('accepts WASI preview1 functions with the spec types and one memory', () => {
    const bytes = module({ types: [fdWrite], imports: [['wasi_snapshot_preview1', 'fd_write', [0x00, 0]]], memory: [0x00, 2] });
    expect(inspectForeignModule(bytes)).toEqual({ memory: { min: 2, max: undefined } });
  });

  it('refuses anything else, naming the import', () => {
    expect(refusal(module({ types: [fdWrite], imports: [['env', 'host_secret', [0x00, 0]]] }))).toBe('imports env.host_secret, which Airlock does not provide: a foreign program may import only wasi_snapshot_preview1 functions');
    expect(refusal(module({ imports: [['env', 'memory', [0x02, 0x00, 1]]] }))).toBe('imports env.memory (a memory), which Airlock does not provide: a foreign program may import only wasi_snapshot_preview1 functions');
    expect(refusal(module({ types: [fdWrite], imports: [['airlock', 'spawn', [0x00, 0]]] }))).toBe('imports airlock.spawn, which Airlock does not provide: a foreign program may import only wasi_snapshot_preview1 functions');
    expect(refusal(module({ types: [fdWrite], imports: [['wasi_snapshot_preview1', 'fd_frobnicate', [0x00, 0]]] }))).toBe('imports wasi_snapshot_preview1.fd_frobnicate, which is not a WASI preview1 function');
    expect(refusal(module({ types: [{ params: [I32, I64], results: [I32] }], imports: [['wasi_snapshot_preview1', 'fd_write', [0x00, 0]]] }))).toBe('imports wasi_snapshot_preview1.fd_write with the type (iI) -> (i); WASI preview1 gives it (iiii) -> (i) (i: i32, I: i64)');
  });

  it('refuses shared, 64-bit and several memories, and what is not a version-1 module', () => {
    expect(refusal(module({ memory: [0x03, 1, 2] }))).toBe('defines a shared or 64-bit memory, which Airlock does not run');
    expect(refusal(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00]))).toBe('not a wasm module of version 1 (a component or a newer format)');
    expect(refusal(new Uint8Array([0x00, 0x61, 0x73]))).toBe('not a wasm module');
  });

  it('rewrites the memory into a shared import capped at the limit, and the module compiles', async () => {
    const bytes = module({ types: [fdWrite], imports: [['wasi_snapshot_preview1', 'fd_write', [0x00, 0]]], memory: [0x01, 1, 100] });
    const shape = inspectForeignModule(bytes);
    const shared = await WebAssembly.compile(shareMemory(bytes, shape, 10) as Uint8Array<ArrayBuffer>);
    const memory = WebAssembly.Module.imports(shared).find((i) => i.kind === 'memory');
    expect(memory).toEqual({ module: SHARED_MEMORY_IMPORT.module, name: SHARED_MEMORY_IMPORT.name, kind: 'memory' });
    const instance = new WebAssembly.Instance(shared, {
      wasi_snapshot_preview1: { fd_write: () => 0 },
      [SHARED_MEMORY_IMPORT.module]: { [SHARED_MEMORY_IMPORT.name]: new WebAssembly.Memory({ initial: 1, maximum: 10, shared: true }) },
    });
    expect(typeof instance.exports._start).toBe('function');
    // A module without an import section gets one.
    const alone = module({ memory: [0x00, 1] });
    const compiled = await WebAssembly.compile(shareMemory(alone, inspectForeignModule(alone), 10) as Uint8Array<ArrayBuffer>);
    expect(WebAssembly.Module.imports(compiled)).toEqual([{ module: SHARED_MEMORY_IMPORT.module, name: SHARED_MEMORY_IMPORT.name, kind: 'memory' }]);
  });
});
