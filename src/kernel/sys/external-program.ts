// Programs whose code does not run as a wasm instance on the kernel thread — Python in its
// own worker or inline — and so reach the kernel through the syscall core directly, with
// the same files, descriptors, pipes, limits, deadline and signals as any process.

import { endOf } from '../proc/exit.js';
import type { Process } from '../proc/process.js';
import type { Program, RunEnvironment } from '../proc/process.js';
import type { Syscalls } from './syscalls.js';

/** A program that runs elsewhere and makes its system calls through `sys`. */
export interface ExternalProgram {
  readonly name: string;
  /** Runs `process` to its end and resolves with its exit status. */
  run(process: Process, sys: Syscalls): Promise<number>;
}

/** An external program as the process table runs it: its own Syscalls per process. */
export class ExternalRunner implements Program {
  constructor(
    private readonly external: ExternalProgram,
    private readonly syscallsFor: (process: Process) => Syscalls,
  ) {}

  get name(): string {
    return this.external.name;
  }

  async run(process: Process, environment: RunEnvironment): Promise<void> {
    try {
      process.end((await this.external.run(process, this.syscallsFor(process))) & 0xff, 'exit');
    } catch (error) {
      endByThrow(process, environment, error, process.tool);
    }
  }
}

/**
 * Ends `process` by what a program run threw: proc_exit, a kill or the deadline end it as
 * they say; anything else is a fault of the program's host code, which crashes the process
 * (status 139) as a trap would, naming it (argv[0], else `name`) on its stderr.
 */
export function endByThrow(process: Process, environment: RunEnvironment, error: unknown, name: string): void {
  const ended = endOf(error);
  if (ended !== undefined) process.end(ended.status, ended.reason);
  else {
    environment.writeError(`${process.argv[0] ?? name}: crashed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.end(139, 'crash');
  }
}
