// The syscall parity table: one list of system calls, each with the result and errno Linux
// gives, run through every way into the kernel that has the call (parity.test.ts): a WASI
// tool (raw preview1 calls), the `airlock` imports, and Python (the channel) — and through
// the host's own CPython on Linux, which checks the expectations themselves. A case
// changes only with Linux's behaviour as its reason.
//
// `call` is an operation and its arguments; paths are relative to the case's own empty
// directory, where `setup` has made its entries first. A result is `ok`, `ok DETAIL` or
// the errno's name; `after` is the state of paths after the call (a kind, files with their
// size, or `missing`).

export type Setup =
  | { dir: string }
  | { file: string; content?: string; mode?: number }
  | { symlink: string; target: string };

export interface ParityCase {
  id: string;
  setup?: Setup[];
  call: string[];
  expect: string;
  after?: Record<string, string>;
}

export const PARITY_CASES: ParityCase[] = [
  // ---- open(2): O_CREAT, O_EXCL, O_NOFOLLOW, trailing slashes --------------------------
  // A dangling symlink: O_CREAT creates the file it points to (Linux). This once differed:
  // WASI tools created the target, Python got EEXIST.
  { id: 'creat-through-dangling-symlink', setup: [{ symlink: 'link', target: 'target' }], call: ['open', 'link', 'creat,wronly'], expect: 'ok', after: { target: 'file:0', link: 'symlink' } },
  { id: 'creat-excl-on-dangling-symlink', setup: [{ symlink: 'link', target: 'target' }], call: ['open', 'link', 'creat,excl,wronly'], expect: 'EEXIST', after: { target: 'missing' } },
  { id: 'creat-through-symlink-into-missing-dir', setup: [{ symlink: 'link', target: 'nodir/target' }], call: ['open', 'link', 'creat,wronly'], expect: 'ENOENT' },
  { id: 'creat-nofollow-on-symlink', setup: [{ symlink: 'link', target: 'target' }], call: ['open', 'link', 'creat,wronly,nofollow'], expect: 'ELOOP', after: { target: 'missing' } },
  { id: 'creat-through-symlink-to-slash', setup: [{ symlink: 'link', target: 'target/' }], call: ['open', 'link', 'creat,wronly'], expect: 'EISDIR', after: { target: 'missing' } },
  { id: 'creat-truncates-through-symlink', setup: [{ file: 'f', content: 'abc' }, { symlink: 'link', target: 'f' }], call: ['open', 'link', 'creat,wronly,trunc'], expect: 'ok', after: { f: 'file:0' } },
  { id: 'creat-excl-on-file', setup: [{ file: 'f' }], call: ['open', 'f', 'creat,excl,wronly'], expect: 'EEXIST' },
  { id: 'creat-new-with-slash', call: ['open', 'new/', 'creat,wronly'], expect: 'EISDIR', after: { new: 'missing' } },
  { id: 'creat-file-with-slash', setup: [{ file: 'f' }], call: ['open', 'f/', 'creat,wronly'], expect: 'EISDIR' },
  { id: 'creat-on-directory', setup: [{ dir: 'd' }], call: ['open', 'd', 'creat,rdonly'], expect: 'EISDIR' },
  { id: 'creat-symlink-loop', setup: [{ symlink: 'loop', target: 'loop' }], call: ['open', 'loop', 'creat,wronly'], expect: 'ELOOP' },
  { id: 'open-nofollow-on-symlink', setup: [{ file: 'f' }, { symlink: 'link', target: 'f' }], call: ['open', 'link', 'rdonly,nofollow'], expect: 'ELOOP' },
  { id: 'open-file-with-slash', setup: [{ file: 'f' }], call: ['open', 'f/', 'rdonly'], expect: 'ENOTDIR' },
  { id: 'open-directory-for-writing', setup: [{ dir: 'd' }], call: ['open', 'd', 'wronly'], expect: 'EISDIR' },
  { id: 'open-directory-flag-on-directory', setup: [{ dir: 'd' }], call: ['open', 'd', 'rdonly,directory'], expect: 'ok' },
  { id: 'open-directory-flag-on-file', setup: [{ file: 'f' }], call: ['open', 'f', 'rdonly,directory'], expect: 'ENOTDIR' },
  { id: 'open-missing', call: ['open', 'missing', 'rdonly'], expect: 'ENOENT' },
  { id: 'open-truncates', setup: [{ file: 'f', content: 'abc' }], call: ['open', 'f', 'wronly,trunc'], expect: 'ok', after: { f: 'file:0' } },
  { id: 'open-appends-without-truncating', setup: [{ file: 'f', content: 'abc' }], call: ['open', 'f', 'wronly,append'], expect: 'ok', after: { f: 'file:3' } },

  // ---- unlink, rmdir, mkdir, rename, symlink ------------------------------------------
  { id: 'unlink-directory', setup: [{ dir: 'd' }], call: ['unlink', 'd'], expect: 'EISDIR' },
  { id: 'unlink-file-with-slash', setup: [{ file: 'f' }], call: ['unlink', 'f/'], expect: 'ENOTDIR', after: { f: 'file:0' } },
  { id: 'unlink-missing', call: ['unlink', 'missing'], expect: 'ENOENT' },
  { id: 'unlink-dangling-symlink', setup: [{ symlink: 'link', target: 'target' }], call: ['unlink', 'link'], expect: 'ok', after: { link: 'missing' } },
  { id: 'rmdir-file', setup: [{ file: 'f' }], call: ['rmdir', 'f'], expect: 'ENOTDIR' },
  { id: 'rmdir-not-empty', setup: [{ dir: 'd' }, { file: 'd/x' }], call: ['rmdir', 'd'], expect: 'ENOTEMPTY' },
  { id: 'mkdir-over-file', setup: [{ file: 'f' }], call: ['mkdir', 'f'], expect: 'EEXIST' },
  { id: 'mkdir-over-dangling-symlink', setup: [{ symlink: 'link', target: 'target' }], call: ['mkdir', 'link'], expect: 'EEXIST', after: { target: 'missing' } },
  { id: 'rename-directory-over-file', setup: [{ dir: 'd' }, { file: 'f' }], call: ['rename', 'd', 'f'], expect: 'ENOTDIR' },
  { id: 'rename-file-over-directory', setup: [{ dir: 'd' }, { file: 'f' }], call: ['rename', 'f', 'd'], expect: 'EISDIR' },
  { id: 'rename-directory-over-non-empty', setup: [{ dir: 'd' }, { dir: 'full' }, { file: 'full/x' }], call: ['rename', 'd', 'full'], expect: 'ENOTEMPTY' },
  { id: 'rename-directory-into-itself', setup: [{ dir: 'd' }], call: ['rename', 'd', 'd/sub'], expect: 'EINVAL' },
  { id: 'rename-missing', call: ['rename', 'missing', 'x'], expect: 'ENOENT' },
  { id: 'rename-into-missing-directory', setup: [{ file: 'f' }], call: ['rename', 'f', 'nodir/x'], expect: 'ENOENT', after: { f: 'file:0' } },
  { id: 'rename-replaces-file', setup: [{ file: 'a', content: 'abc' }, { file: 'b' }], call: ['rename', 'a', 'b'], expect: 'ok', after: { a: 'missing', b: 'file:3' } },
  { id: 'symlink-over-file', setup: [{ file: 'f' }], call: ['symlink', 'x', 'f'], expect: 'EEXIST' },

  // ---- stat, readlink, readdir ----------------------------------------------------------
  { id: 'stat-dangling-symlink', setup: [{ symlink: 'link', target: 'target' }], call: ['stat', 'link'], expect: 'ENOENT' },
  { id: 'lstat-dangling-symlink', setup: [{ symlink: 'link', target: 'target' }], call: ['lstat', 'link'], expect: 'ok symlink' },
  { id: 'stat-symlink-to-directory', setup: [{ dir: 'd' }, { symlink: 'link', target: 'd' }], call: ['stat', 'link'], expect: 'ok dir' },
  { id: 'stat-symlink-loop', setup: [{ symlink: 'loop', target: 'loop' }], call: ['stat', 'loop'], expect: 'ELOOP' },
  { id: 'stat-file-with-slash', setup: [{ file: 'f' }], call: ['stat', 'f/'], expect: 'ENOTDIR' },
  { id: 'readlink-file', setup: [{ file: 'f' }], call: ['readlink', 'f'], expect: 'EINVAL' },
  { id: 'readlink-symlink', setup: [{ symlink: 'link', target: '../some/where' }], call: ['readlink', 'link'], expect: 'ok ../some/where' },
  { id: 'readdir-file', setup: [{ file: 'f' }], call: ['readdir', 'f'], expect: 'ENOTDIR' },
  { id: 'readdir-directory', setup: [{ dir: 'd' }, { file: 'd/b' }, { dir: 'd/a' }, { symlink: 'd/c', target: 'nowhere' }], call: ['readdir', 'd'], expect: 'ok a,b,c' },

  // ---- pipes and descriptors ------------------------------------------------------------
  { id: 'pipe-reads-eof-without-writers', call: ['pipe-eof'], expect: 'ok 0' },
  { id: 'pipe-read-end-is-not-writable', call: ['pipe-write-read-end'], expect: 'EBADF' },
  { id: 'dup-closed-descriptor', call: ['dup', '99'], expect: 'EBADF' },
  { id: 'dup2-closed-descriptor', call: ['dup2', '99', '50'], expect: 'EBADF' },

  // ---- processes ------------------------------------------------------------------------
  { id: 'spawn-missing-program', call: ['spawn', 'airlock-parity-no-such-program'], expect: 'ENOENT' },
  { id: 'spawn-not-executable', setup: [{ file: 'x', content: '#!/bin/sh\n', mode: 0o644 }], call: ['spawn', './x'], expect: 'EACCES' },
  { id: 'spawn-directory', setup: [{ dir: 'd' }], call: ['spawn', './d'], expect: 'EACCES' },
  { id: 'spawn-unknown-format', setup: [{ file: 'x', content: 'not a program\n', mode: 0o755 }], call: ['spawn', './x'], expect: 'ENOEXEC' },
  { id: 'wait-without-children', call: ['wait', '-1'], expect: 'ECHILD' },
  { id: 'kill-missing-process', call: ['kill', '999999999', '0'], expect: 'ESRCH' },
  { id: 'kill-invalid-signal', call: ['kill', 'self', '99'], expect: 'EINVAL' },
  { id: 'sleep', call: ['sleep', '1'], expect: 'ok' },

  // ---- the network (sandbox only: a test never sends traffic; the policy refuses first) --
  { id: 'network-request-refused-by-policy', call: ['net', 'http://127.0.0.1:9/parity'], expect: 'ECONNREFUSED' },
];

/** Path operations: WASI preview1 has them (and stat also the airlock `path_stat_ext`). */
export const PATH_CALLS = new Set(['open', 'unlink', 'rmdir', 'mkdir', 'rename', 'symlink', 'stat', 'lstat', 'readlink', 'readdir']);
/** Process and descriptor operations beyond WASI: the airlock imports. */
export const PROCESS_CALLS = new Set(['pipe-eof', 'pipe-write-read-end', 'dup', 'dup2', 'spawn', 'wait', 'kill', 'sleep']);
/** Never made on the host: the oracle for them is docs/abi.md ("Network"). */
export const SANDBOX_ONLY_CALLS = new Set(['net']);
