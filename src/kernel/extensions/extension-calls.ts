// Host extensions as the sandbox sees them (docs/extensions.md): each is a command whose
// process runs no code of its own. It tells the host "NAME was called with these args"
// and then only does what the host asks — read some of its stdin, write to its stdout or
// stderr, exit — so stdin reaches the handler only as the handler pulls it (a handler that
// never reads never blocks on a terminal), and its output meets the pipes' backpressure.
// The process waits in an external wait meanwhile, so signals, the run's deadline and a
// broken pipe end it as any process; the host is then told to stop the handler.
//
// What the sandbox holds is a name and a description. Which handler runs, and whether a
// call is answered at all, is the host's decision (src/host/extensions/).

import { KernelError } from '../errno.js';
import { Blocker, type Waiting } from '../fd/blocker.js';
import type { Process } from '../proc/process.js';
import type { ExternalProgram } from '../sys/external-program.js';
import type { Syscalls } from '../sys/syscalls.js';
import type { ExtensionDecl, WorkerEvent } from '../../protocol/messages.js';

type Operation =
  | { kind: 'read'; max: number; resolve: (data: Uint8Array) => void; reject: (error: Error) => void }
  | { kind: 'write'; fd: 1 | 2; data: Uint8Array; resolve: () => void; reject: (error: Error) => void }
  | { kind: 'exit'; status: number; stdout?: Uint8Array; stderr?: Uint8Array };

/** One running extension command: the host's requests waiting for its process. */
interface Call {
  readonly process: Process;
  readonly operations: Operation[];
  waiter: Blocker | undefined;
}

/** Every extension command of one kernel, and the host's requests routed to them. */
export class ExtensionCalls {
  private readonly calls = new Map<number, Call>();
  private nextId = 1;

  constructor(private readonly send: (event: WorkerEvent) => void) {}

  /** The programs of `decls`, one tool each, for the kernel's program registry. */
  programs(decls: readonly ExtensionDecl[]): Array<{ tools: string[]; program: ExternalProgram }> {
    return decls.map((decl) => ({ tools: [decl.name], program: { name: `extension:${decl.name}`, run: (process, sys) => this.run(decl, process, sys) } }));
  }

  read(callId: number, max: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => this.queue(callId, { kind: 'read', max, resolve, reject }));
  }

  write(callId: number, stream: 'stdout' | 'stderr', data: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => this.queue(callId, { kind: 'write', fd: stream === 'stdout' ? 1 : 2, data, resolve, reject }));
  }

  exit(callId: number, status: number, output: { stdout?: Uint8Array; stderr?: Uint8Array } = {}): void {
    this.queue(callId, { kind: 'exit', status: status & 0xff, stdout: output.stdout, stderr: output.stderr });
  }

  private queue(callId: number, operation: Operation): void {
    const call = this.calls.get(callId);
    if (call === undefined) {
      if (operation.kind !== 'exit') operation.reject(new Error(`extension call ${callId} has ended`));
      return;
    }
    call.operations.push(operation);
    call.waiter?.wake();
  }

  private async run(decl: ExtensionDecl, process: Process, sys: Syscalls): Promise<number> {
    if (process.argv.length === 2 && process.argv[1] === '--help') {
      await sys.complete(sys.writeAll(1, new TextEncoder().encode(decl.description.endsWith('\n') ? decl.description : `${decl.description}\n`)));
      return 0;
    }
    const callId = this.nextId++;
    const call: Call = { process, operations: [], waiter: undefined };
    this.calls.set(callId, call);
    this.send({ airlockEvent: 'extension-call', callId, name: decl.name, args: process.argv.slice(1), env: envRecord(sys.environ()), cwd: sys.getcwd(), stdinIsTerminal: isTerminal(sys, 0) });
    let status: number | undefined;
    try {
      for (;;) {
        const operation = await sys.complete(this.next(decl.name, call));
        if (operation.kind === 'exit') {
          if (operation.stdout !== undefined && operation.stdout.length > 0) await sys.complete(sys.writeAll(1, operation.stdout));
          if (operation.stderr !== undefined && operation.stderr.length > 0) await sys.complete(sys.writeAll(2, operation.stderr));
          status = operation.status;
          return status;
        }
        await this.perform(operation, sys);
      }
    } finally {
      this.calls.delete(callId);
      for (const left of call.operations) if (left.kind !== 'exit') left.reject(new Error(`extension call ${callId} has ended`));
      // Ended by the sandbox (a signal, the deadline, a broken pipe): the handler must stop.
      if (status === undefined) this.send({ airlockEvent: 'extension-ended', callId, status: process.status ?? 1 });
    }
  }

  /** Does one of the host's requests; a failure is the host's to see, except a kill. */
  private async perform(operation: Exclude<Operation, { kind: 'exit' }>, sys: Syscalls): Promise<void> {
    try {
      if (operation.kind === 'read') operation.resolve((await sys.complete(sys.read(0, operation.max))).slice());
      else {
        await sys.complete(sys.writeAll(operation.fd, operation.data));
        operation.resolve();
      }
    } catch (error) {
      operation.reject(error instanceof Error ? error : new Error(String(error)));
      // A kill (signal, deadline, SIGPIPE) ends the process; an errno (EBADF) was only the request's.
      if (!(error instanceof KernelError)) throw error;
    }
  }

  /** The host's next request, or a wait for it (an external wait: the host answers). */
  private *next(name: string, call: Call): Waiting<Operation> {
    for (;;) {
      const operation = call.operations.shift();
      if (operation !== undefined) return operation;
      const blocker = new Blocker('external', `extension ${name}`);
      call.waiter = blocker;
      yield blocker;
      call.waiter = undefined;
    }
  }
}

/** Whether `fd` is the terminal (false when it is not open). */
function isTerminal(sys: Syscalls, fd: number): boolean {
  try {
    return sys.isatty(fd);
  } catch (error) {
    if (error instanceof KernelError) return false;
    throw error;
  }
}

function envRecord(env: string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const entry of env) {
    const at = entry.indexOf('=');
    if (at > 0) record[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return record;
}
