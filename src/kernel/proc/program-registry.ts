// The installed programs, by the tool names they answer to. Several tools may share one
// program (a multicall binary); the process learns its tool through `proc_tool_name`.

import { Errno, fail } from '../errno.js';
import type { Program } from './process.js';

/** Programs by the tool names (argv[0] after PATH search) they answer to. */
export class ProgramRegistry {
  private readonly byTool = new Map<string, Program>();

  register(tools: string[], program: Program): void {
    for (const tool of tools) this.byTool.set(tool, program);
  }

  get(tool: string): Program {
    const program = this.byTool.get(tool);
    if (program === undefined) fail(Errno.NOENT, `no program for tool ${tool}`);
    return program;
  }

  has(tool: string): boolean {
    return this.byTool.has(tool);
  }

  tools(): string[] {
    return [...this.byTool.keys()].sort();
  }
}
