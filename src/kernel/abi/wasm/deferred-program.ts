// A tool module that init named but the host sends later (ModuleSpec.deferred): its tools
// are installed from the start, and a process started before the module has arrived waits
// for it, then runs as any other. The browser sends the shell's module first so that the
// first prompt waits for one download and compilation, not all of them.

import type { Process, Program, RunEnvironment } from '../../proc/process.js';

export class DeferredProgram implements Program {
  private settle: { resolve(program: Program): void; reject(reason: Error): void } | undefined;
  private readonly arrived: Promise<Program>;

  constructor(readonly name: string) {
    this.arrived = new Promise<Program>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // A failure is reported by the runs that wait for it, if any.
    this.arrived.catch(() => undefined);
  }

  /** The module has arrived, compiled: waiting runs and later ones run `program`. */
  provide(program: Program): void {
    this.settle?.resolve(program);
  }

  /** The module cannot be had: waiting runs and later ones fail with `reason`. */
  fail(reason: string): void {
    this.settle?.reject(new Error(reason));
  }

  async run(process: Process, environment: RunEnvironment): Promise<void> {
    let program: Program;
    try {
      program = await this.arrived;
    } catch (error) {
      environment.writeError(`${process.argv[0] ?? this.name}: the ${this.name} module could not be loaded: ${(error as Error).message}\n`);
      process.end(126, 'exit');
      return;
    }
    // Killed while it waited (Ctrl-C, the deadline): it ends as one killed before it started.
    if (process.status !== undefined) return;
    if (process.pendingKill !== undefined) {
      process.end(process.pendingKill.status, process.pendingKill.reason);
      return;
    }
    await program.run(process, environment);
  }
}
