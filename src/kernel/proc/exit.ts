// How a process ends, as exceptions that unwind out of wasm through the import that ended it.

/** How a process ended, for the run result: normal exit, signal, deadline, crash. */
export type EndReason = 'exit' | 'signal' | 'deadline' | 'sigpipe' | 'crash';

/** The program called proc_exit (control flow, not a fault: no stack trace is taken). */
export class ProcessExit extends Error {
  readonly code: number;

  constructor(code: number) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`exit ${code}`);
    Error.stackTraceLimit = limit;
    this.name = 'ProcessExit';
    this.code = code;
  }
}

/** The kernel ended the process: a signal, the run's deadline or a broken pipe. */
export class ProcessKilled extends Error {
  constructor(
    /** The status its parent sees: 128 + signal, or 124 for the deadline. */
    readonly status: number,
    readonly reason: 'signal' | 'deadline' | 'sigpipe',
  ) {
    super(`killed (${reason}), status ${status}`);
    this.name = 'ProcessKilled';
  }
}

export const SIGNALS: Record<string, number> = {
  HUP: 1, INT: 2, QUIT: 3, ILL: 4, TRAP: 5, ABRT: 6, BUS: 7, FPE: 8, KILL: 9, USR1: 10, SEGV: 11,
  USR2: 12, PIPE: 13, ALRM: 14, TERM: 15, STKFLT: 16, CHLD: 17, CONT: 18, STOP: 19, TSTP: 20,
  TTIN: 21, TTOU: 22, URG: 23, XCPU: 24, XFSZ: 25, VTALRM: 26, PROF: 27, WINCH: 28, IO: 29, PWR: 30, SYS: 31,
};

/** Signals whose default action is to do nothing (or to stop/continue, which we ignore). */
export const IGNORED_BY_DEFAULT = new Set([0, 17, 18, 19, 20, 21, 22, 23, 28]);

export const DEADLINE_STATUS = 124;
export const SIGPIPE_STATUS = 128 + 13;

/** The status and reason of an end by ProcessExit or ProcessKilled; undefined for any other error. */
export function endOf(error: unknown): { status: number; reason: EndReason } | undefined {
  if (error instanceof ProcessExit) return { status: error.code & 0xff, reason: 'exit' };
  if (error instanceof ProcessKilled) return { status: error.status, reason: error.reason };
  return undefined;
}
