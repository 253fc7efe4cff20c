// Compiled wasm modules by tool name. A module is compiled once (or arrives compiled from
// the host) and every process is a fresh instance of it. Several tools may share one
// module (a multicall binary); the process learns its tool through `proc_tool_name`.

import { Errno, fail } from '../errno.js';

/** A program whose code runs elsewhere and reaches the kernel through ProcessSyscalls. */
export interface ExternalProgram {
  kind: 'external';
  name: string;
  /** Runs `process` to its end and resolves with its exit status. */
  run(process: import('./process.js').Process, syscalls: import('./process-syscalls.js').ProcessSyscalls): Promise<number>;
}

export type Program = ProgramModule | ExternalProgram;

export interface ProgramModule {
  kind?: 'wasm';
  /** Module name in the manifest (e.g. "coreutils"). */
  name: string;
  module: WebAssembly.Module;
  /** Initial pages of the memory the module imports. */
  memoryMinPages: number;
  /** Bytes reserved for saved stacks while suspended. */
  asyncifyBytes: number;
}

export const DEFAULT_ASYNCIFY_BYTES = 256 * 1024;

export class ModuleRegistry {
  private readonly byTool = new Map<string, Program>();

  register(tools: string[], program: Program): void {
    for (const tool of tools) this.byTool.set(tool, program);
  }

  get(tool: string): Program {
    const program = this.byTool.get(tool);
    if (program === undefined) fail(Errno.NOENT, `no module for tool ${tool}`);
    return program;
  }

  has(tool: string): boolean {
    return this.byTool.has(tool);
  }

  tools(): string[] {
    return [...this.byTool.keys()].sort();
  }
}

/**
 * Reads the initial page count of the imported memory `env.memory` from the module's
 * import section (the JS API does not expose import limits).
 */
export function importedMemoryMinPages(bytes: Uint8Array): number {
  let offset = 8;
  const readVarUint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[offset++] as number;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
  };
  const readName = (): string => {
    const length = readVarUint();
    const name = new TextDecoder().decode(bytes.subarray(offset, offset + length));
    offset += length;
    return name;
  };
  while (offset < bytes.length) {
    const sectionId = bytes[offset++] as number;
    const sectionSize = readVarUint();
    const sectionEnd = offset + sectionSize;
    if (sectionId !== 2) {
      offset = sectionEnd;
      continue;
    }
    const count = readVarUint();
    for (let i = 0; i < count; i++) {
      const moduleName = readName();
      const fieldName = readName();
      const kind = bytes[offset++] as number;
      if (kind === 0) readVarUint();
      else if (kind === 1) {
        offset += 1;
        const flags = readVarUint();
        readVarUint();
        if (flags & 1) readVarUint();
      } else if (kind === 2) {
        const flags = readVarUint();
        const min = readVarUint();
        if (flags & 1) readVarUint();
        if (moduleName === 'env' && fieldName === 'memory') return min;
      } else if (kind === 3) offset += 2;
    }
    break;
  }
  throw new Error('module does not import env.memory (build with --import-memory)');
}
