// Reusing an ended process's instance (wasm-program.ts, instance-image.ts): the next process
// starts on memory byte-for-byte like a fresh instance's, whatever the last one left in its
// statics, heap or stack, and with its own arguments, directory and status; a module that
// does not export its stack pointer gets a new instance for every process.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTestKernel, type TestKernel } from '../../../../tests/helpers/test-kernel.js';
import { WasmProgram, type WasmRuntime } from './wasm-program.js';

const probeBytes = readFileSync(new URL('../../../../tests/wasm/probe.wasm', import.meta.url));
const SECRET = 'correct-horse-battery-staple-4f1c';

/** A probe kernel whose probe program counts the instances it makes and copies each process's memory as it starts. */
function observed(bytes: Uint8Array): { t: TestKernel; instances: () => number; starts: Uint8Array[] } {
  const t = createTestKernel();
  const installed = t.kernel.programs.get('probe') as WasmProgram;
  let instances = 0;
  const starts: Uint8Array[] = [];
  const runtime: WasmRuntime = {
    memories: installed.runtime.memories,
    imports: (memory) => {
      instances += 1;
      const imports = installed.runtime.imports(memory);
      return {
        ...imports,
        bind: (process) => {
          starts.push(new Uint8Array(memory.buffer).slice());
          imports.bind(process);
        },
      };
    },
  };
  const module = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  t.kernel.programs.register(['probe'], new WasmProgram('probe', module, installed.memoryMinPages, installed.asyncifyBytes, runtime));
  return { t, instances: () => instances, starts };
}

/** Whether `memory` (possibly grown) is `fresh` followed by zeros. */
function likeFresh(memory: Uint8Array, fresh: Uint8Array): boolean {
  if (memory.length < fresh.length) return false;
  for (let i = 0; i < fresh.length; i++) if (memory[i] !== fresh[i]) return false;
  for (let i = fresh.length; i < memory.length; i++) if (memory[i] !== 0) return false;
  return true;
}

function contains(memory: Uint8Array, text: string): boolean {
  return Buffer.from(memory.buffer, memory.byteOffset, memory.length).includes(text);
}

const encodeVarUint = (value: number): number[] => {
  const out: number[] = [];
  do {
    const byte = value & 0x7f;
    value = Math.floor(value / 128);
    out.push(value > 0 ? byte | 0x80 : byte);
  } while (value > 0);
  return out;
};

/**
 * `bytes` with its export section's entries (name, and the entry's bytes) passed through
 * `edit`: a module built with other exports.
 */
function editExports(bytes: Uint8Array, edit: (entries: Array<{ name: string; bytes: number[] }>) => Array<{ name: string; bytes: number[] }>): Uint8Array {
  const readVarUint = (at: number): [number, number] => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[at++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return [value, at];
      shift += 7;
    }
  };
  let offset = 8;
  while (offset < bytes.length) {
    const id = bytes[offset] as number;
    const [size, contentStart] = readVarUint(offset + 1);
    const end = contentStart + size;
    if (id === 7) {
      const [count, first] = readVarUint(contentStart);
      const entries: Array<{ name: string; bytes: number[] }> = [];
      for (let i = 0, at = first; i < count; i++) {
        const [length, nameStart] = readVarUint(at);
        const next = readVarUint(nameStart + length + 1)[1];
        entries.push({ name: new TextDecoder().decode(bytes.subarray(nameStart, nameStart + length)), bytes: [...bytes.subarray(at, next)] });
        at = next;
      }
      const edited = edit(entries);
      const content = [...encodeVarUint(edited.length), ...edited.flatMap((entry) => entry.bytes)];
      return new Uint8Array([...bytes.subarray(0, offset), 7, ...encodeVarUint(content.length), ...content, ...bytes.subarray(end)]);
    }
    offset = end;
  }
  throw new Error('module has no export section');
}

const STACK_POINTER = '__stack_pointer';
const withoutStackPointer = (bytes: Uint8Array): Uint8Array => editExports(bytes, (entries) => entries.filter((entry) => entry.name !== STACK_POINTER));
/**
 * The probe as scripts/build-wasm.mjs now links it, also from a build before that: wasm-ld
 * defines `__stack_pointer` as global 0.
 */
const withStackPointer = (bytes: Uint8Array): Uint8Array =>
  editExports(bytes, (entries) => (entries.some((entry) => entry.name === STACK_POINTER) ? entries : [...entries, { name: STACK_POINTER, bytes: [...encodeVarUint(STACK_POINTER.length), ...new TextEncoder().encode(STACK_POINTER), 3, 0] }]));

describe('instance reuse', () => {
  it('starts every process on a fresh instance’s memory, whatever the last one wrote, and reuses instances', async () => {
    const { t, instances, starts } = observed(withStackPointer(probeBytes));
    const runs: Array<{ argv: string[]; cwd?: string; timeoutMs?: number; out: string; exitCode: number }> = [
      { argv: ['probe', 'echo', SECRET], out: `${SECRET}\n`, exitCode: 0 },
      { argv: ['probe', 'args', SECRET, 'b'], out: `[${SECRET}]\n[b]\n`, exitCode: 0 },
      { argv: ['probe', 'exit', '3'], out: '', exitCode: 3 },
      { argv: ['probe', 'args', 'c'], out: '[c]\n', exitCode: 0 },
      { argv: ['probe', 'pwd'], cwd: '/tmp', out: '/tmp\n', exitCode: 0 },
      { argv: ['probe', 'pwd'], cwd: '/', out: '/\n', exitCode: 0 },
      // Grows its memory (reused while small enough: the rest is zeroed).
      { argv: ['probe', 'alloc', '2'], out: 'allocated 2\n', exitCode: 0 },
      { argv: ['probe', 'echo', SECRET, SECRET], out: `${SECRET} ${SECRET}\n`, exitCode: 0 },
      // Killed while suspended deep in its stack: its stack pointer is not back at the top.
      { argv: ['probe', 'sleep', '60000'], timeoutMs: 50, out: '', exitCode: 124 },
      { argv: ['probe', 'exit', '0'], out: '', exitCode: 0 },
      { argv: ['probe', 'echo', 'last'], out: 'last\n', exitCode: 0 },
      { argv: ['probe', 'exit', '7'], out: '', exitCode: 7 },
    ];
    for (const run of runs) {
      const result = await t.run(run.argv, { cwd: run.cwd, timeoutMs: run.timeoutMs });
      expect({ argv: run.argv, out: result.out, exitCode: result.exitCode }).toEqual({ argv: run.argv, out: run.out, exitCode: run.exitCode });
    }
    expect(instances()).toBeLessThan(runs.length / 2);
    const fresh = starts[0] as Uint8Array;
    expect(contains(fresh, SECRET)).toBe(false);
    expect(starts).toHaveLength(runs.length);
    const unlike = starts.map((memory, index) => (likeFresh(memory, fresh) && !contains(memory, SECRET) ? -1 : index)).filter((index) => index >= 0);
    expect(unlike).toEqual([]);
  });

  it('keeps as many instances ready as a pipeline takes at once (up to three), restored between runs', async () => {
    const { t } = observed(withStackPointer(probeBytes));
    const program = t.kernel.programs.get('probe') as WasmProgram;
    const turns = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    // probe pipe3: the probe and its three children, all started before the loop turns.
    expect((await t.run(['probe', 'pipe3', '1000'])).out).toBe('1000\n');
    await turns(8);
    const before = { ...program.starts };
    expect((await t.run(['probe', 'pipe3', '1000'])).out).toBe('1000\n');
    // Four takes, at most three ready (or four, when the loop turned between two of them).
    expect(program.starts.ready - before.ready).toBeGreaterThanOrEqual(3);
    expect(program.starts.restored + program.starts.made - before.restored - before.made).toBeLessThanOrEqual(1);
    // One process a run keeps one ready (each holds its memory resident): never short.
    const single = observed(withStackPointer(probeBytes));
    const alone = single.t.kernel.programs.get('probe') as WasmProgram;
    for (let i = 0; i < 4; i++) {
      expect((await single.t.run(['probe', 'exit', '0'])).exitCode).toBe(0);
      await turns(4);
    }
    expect(alone.starts).toEqual({ ready: 3, restored: 0, made: 1 });
  });

  it('restores in the first turn after a run every ended instance the next run needs', async () => {
    const { t } = observed(withStackPointer(probeBytes));
    const program = t.kernel.programs.get('probe') as WasmProgram;
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 2; i++) {
      expect((await t.run(['probe', 'pipe3', '1000'])).out).toBe('1000\n');
      for (let k = 0; k < 8; k++) await turn();
    }
    // A host's next request can arrive one turn after the reply: three ready by then.
    expect((await t.run(['probe', 'pipe3', '1000'])).out).toBe('1000\n');
    await turn();
    const before = { ...program.starts };
    expect((await t.run(['probe', 'pipe3', '1000'])).out).toBe('1000\n');
    expect(program.starts.ready - before.ready).toBeGreaterThanOrEqual(3);
  });

  it('gives a module that does not export its stack pointer a new instance for every process', async () => {
    const { t, instances } = observed(withoutStackPointer(probeBytes));
    for (let i = 0; i < 6; i++) {
      const result = await t.run(['probe', 'args', String(i)]);
      expect(result.out).toBe(`[${i}]\n`);
    }
    expect(instances()).toBeGreaterThanOrEqual(6);
  });
});
