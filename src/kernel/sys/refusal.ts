// The refusals the kernel makes on a process's behalf, told to whoever watches (the host's
// audit, as events the sandbox reports): a tool outside the allowlist, and a change to the
// filesystem refused as read-only (EROFS) or past a limit (ENOSPC). Told where the meaning
// is — the syscall core — so every ABI's refusals are told, once each.

import { Errno, KernelError } from '../errno.js';
import { FsLimitError } from '../vfs/limits.js';

export type Refusal =
  | { kind: 'tool'; tool: string }
  /** `path` as the process named it (or its descriptor's path); never contents. */
  | { kind: 'write'; errno: 'EROFS' | 'ENOSPC'; path: string; limit?: 'fsBytes' | 'fileCount' };

/** Tells `refused` of `error` if it is a refused write of `path`. */
export function reportRefusal(error: unknown, path: string, refused: ((refusal: Refusal) => void) | undefined): void {
  if (refused === undefined || !(error instanceof KernelError)) return;
  if (error instanceof FsLimitError) refused({ kind: 'write', errno: 'ENOSPC', path, limit: error.limit });
  else if (error.errno === Errno.ROFS) refused({ kind: 'write', errno: 'EROFS', path });
}
