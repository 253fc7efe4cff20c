// Errno values come from browser_wasi_shim's WASI definitions; this module adds the
// kernel's typed error so every failure carries its errno and a reason.
import { wasi } from '@bjorn3/browser_wasi_shim';

export const Errno = {
  SUCCESS: wasi.ERRNO_SUCCESS,
  ACCES: wasi.ERRNO_ACCES,
  AGAIN: wasi.ERRNO_AGAIN,
  BADF: wasi.ERRNO_BADF,
  CHILD: wasi.ERRNO_CHILD,
  DEADLK: wasi.ERRNO_DEADLK,
  EXIST: wasi.ERRNO_EXIST,
  FAULT: wasi.ERRNO_FAULT,
  FBIG: wasi.ERRNO_FBIG,
  INTR: wasi.ERRNO_INTR,
  INVAL: wasi.ERRNO_INVAL,
  ISDIR: wasi.ERRNO_ISDIR,
  LOOP: wasi.ERRNO_LOOP,
  MFILE: wasi.ERRNO_MFILE,
  MSGSIZE: wasi.ERRNO_MSGSIZE,
  NAMETOOLONG: wasi.ERRNO_NAMETOOLONG,
  NOBUFS: wasi.ERRNO_NOBUFS,
  NOENT: wasi.ERRNO_NOENT,
  NOEXEC: wasi.ERRNO_NOEXEC,
  NOMEM: wasi.ERRNO_NOMEM,
  NOSPC: wasi.ERRNO_NOSPC,
  NOSYS: wasi.ERRNO_NOSYS,
  NOTDIR: wasi.ERRNO_NOTDIR,
  NOTEMPTY: wasi.ERRNO_NOTEMPTY,
  NOTSUP: wasi.ERRNO_NOTSUP,
  NOTTY: wasi.ERRNO_NOTTY,
  NXIO: wasi.ERRNO_NXIO,
  PERM: wasi.ERRNO_PERM,
  PIPE: wasi.ERRNO_PIPE,
  ROFS: wasi.ERRNO_ROFS,
  SPIPE: wasi.ERRNO_SPIPE,
  SRCH: wasi.ERRNO_SRCH,
  STALE: wasi.ERRNO_STALE,
  TIMEDOUT: wasi.ERRNO_TIMEDOUT,
  XDEV: wasi.ERRNO_XDEV,
  CONNREFUSED: wasi.ERRNO_CONNREFUSED,
} as const;

/**
 * A failed kernel operation: the errno the process sees and why. An errno is an answer,
 * not a fault: programs meet thousands (a PATH search is a row of ENOENTs), so no stack
 * trace is taken — capturing one cost more than the call that failed.
 */
export class KernelError extends Error {
  readonly errno: number;

  constructor(errno: number, message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'KernelError';
    this.errno = errno;
  }
}

/** Throws a KernelError; a helper so call sites stay one line. */
export function fail(errno: number, message: string): never {
  throw new KernelError(errno, message);
}

/** The errno of any thrown value: KernelErrors keep theirs, anything else is a fault. */
export function errnoOf(error: unknown): number {
  if (error instanceof KernelError) return error.errno;
  throw error;
}
