// What running a path means: find the program (PATH search like execvp), then look at its
// content, like Linux's binfmt handlers: a /usr/bin tool entry runs one of the kernel's
// programs; a wasm module (`\0asm`) runs as a foreign WASI program (abi/foreign/); `#!`
// runs its interpreter with the script's path; anything else is ENOEXEC (the shell then
// runs it as a script, as bash does). classify() is the one place a new kind of command
// is recognised; launch() (sys/spawn.ts) asks the kernel for the program of each kind.

import { Errno, KernelError, fail } from '../errno.js';
import { toolNameOf } from '../vfs/boot.js';
import type { VfsCaller } from '../vfs/caller.js';
import type { FileInode } from '../vfs/inode.js';
import type { Vfs } from '../vfs/vfs.js';

export const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';
const MAX_INTERPRETER_DEPTH = 4;
const SHEBANG_MAX = 256;

/** What a file found on PATH runs as. */
export type ExecTarget =
  /** One of the kernel's programs, by its tool name (a /usr/bin entry). */
  | { kind: 'tool'; tool: string; argv: string[]; path: string }
  /** A wasm32-wasi module in the filesystem (a package, ./prog.wasm). */
  | { kind: 'wasm'; file: FileInode; argv: string[]; path: string };

/** The kind of executable `head` (a file's first bytes) is, or 'script' for `#!`. */
export function classify(head: Uint8Array): { kind: 'tool'; tool: string } | { kind: 'wasm' } | { kind: 'script' } | undefined {
  const tool = toolNameOf(head);
  if (tool !== undefined) return { kind: 'tool', tool };
  if (head[0] === 0x00 && head[1] === 0x61 && head[2] === 0x73 && head[3] === 0x6d) return { kind: 'wasm' };
  if (head[0] === 0x23 && head[1] === 0x21) return { kind: 'script' };
  return undefined;
}

export function pathFromEnv(env: string[]): string {
  for (const entry of env) if (entry.startsWith('PATH=')) return entry.slice(5);
  return DEFAULT_PATH;
}

/** Finds `program` on PATH (or takes it as a path when it has a slash). */
export function findProgram(vfs: Vfs, caller: VfsCaller, cwdIno: number, program: string, searchPath: string): string {
  if (program.length === 0) fail(Errno.NOENT, 'empty program name');
  if (program.includes('/')) return program;
  let sawDenied = false;
  for (const dir of searchPath.split(':')) {
    const candidate = `${dir === '' ? '.' : dir}/${program}`;
    try {
      const inode = vfs.resolve(cwdIno, candidate, true, caller);
      if (inode.kind !== 'file') continue;
      if ((inode.mode & 0o111) === 0) {
        sawDenied = true;
        continue;
      }
      return candidate;
    } catch (error) {
      if (!(error instanceof KernelError)) throw error;
    }
  }
  fail(sawDenied ? Errno.ACCES : Errno.NOENT, 'command not found');
}

/** Resolves what to run for `program` with `argv`, following `#!` interpreters. */
export function resolveExec(vfs: Vfs, caller: VfsCaller, cwdIno: number, program: string, argv: string[], env: string[]): ExecTarget {
  const searchPath = pathFromEnv(env);
  let currentProgram = program;
  let currentArgv = argv.length > 0 ? argv : [program];
  for (let depth = 0; depth <= MAX_INTERPRETER_DEPTH; depth++) {
    const path = findProgram(vfs, caller, cwdIno, currentProgram, searchPath);
    const inode = vfs.resolve(cwdIno, path, true, caller);
    if (inode.kind === 'dir') fail(Errno.ACCES, 'is a directory');
    if (inode.kind !== 'file') fail(Errno.ACCES, 'not a regular file');
    if ((inode.mode & 0o111) === 0) fail(Errno.ACCES, 'permission denied');
    const head = inode.data.subarray(0, Math.min(inode.size, SHEBANG_MAX));
    const kind = classify(head);
    if (kind?.kind === 'tool') return { kind: 'tool', tool: kind.tool, argv: currentArgv, path };
    if (kind?.kind === 'wasm') return { kind: 'wasm', file: inode, argv: currentArgv, path };
    if (kind?.kind === 'script') {
      const line = new TextDecoder().decode(head.subarray(2)).split('\n')[0] as string;
      const trimmed = line.replace(/^[ \t]+/, '').replace(/[ \t\r]+$/, '');
      if (trimmed.length === 0) fail(Errno.NOEXEC, 'empty interpreter line');
      const split = trimmed.search(/[ \t]/);
      const interpreter = split < 0 ? trimmed : trimmed.slice(0, split);
      const optionalArg = split < 0 ? '' : trimmed.slice(split).replace(/^[ \t]+/, '');
      currentArgv = [interpreter, ...(optionalArg ? [optionalArg] : []), path, ...currentArgv.slice(1)];
      currentProgram = interpreter;
      if (!interpreter.includes('/')) fail(Errno.NOENT, 'interpreter must be an absolute path');
      continue;
    }
    fail(Errno.NOEXEC, 'exec format error');
  }
  fail(Errno.LOOP, 'too many levels of interpreters');
}
