// What starting a process means, for every way one starts: a process's spawn (the airlock
// import, Python's subprocess), a run() of an argv, and the session shell. The program is
// found like execvp (sys/exec.ts); a tool outside the sandbox's allowlist does start, as a
// process that only says it is not allowed and exits 126; the child gets the descriptors
// it is given and the root directory as its preopen.

import { Errno, fail } from '../errno.js';
import type { Description } from '../fd/description.js';
import type { Process } from '../proc/process.js';
import type { ProcessTable } from '../proc/process-table.js';
import type { Program } from '../proc/process.js';
import type { VfsCaller } from '../vfs/caller.js';
import { normalizeAbsolute } from '../vfs/path.js';
import type { Vfs } from '../vfs/vfs.js';
import { resolveExec, type ExecTarget } from './exec.js';
import type { Refusal } from './refusal.js';

/** A process's request to start a child (docs/abi.md, "Processes"). */
export interface SpawnRequest {
  /** Searched on PATH from `env` when it has no '/'. */
  program: string;
  /** argv[0] first; empty: [program]. */
  argv: string[];
  env: string[];
  /** Empty: the parent's. */
  cwd: string;
  /** The child's descriptor `childFd` refers to what the parent's `parentFd` does. */
  fds: Array<{ childFd: number; parentFd: number }>;
  /** Opaque bytes for the child (the shell's serialized state). */
  blob: Uint8Array;
  /** EPIPE is returned instead of ending the child with status 141. */
  ignoreSigpipe: boolean;
  /** The child leads a new process group (pgid = pid). */
  newGroup: boolean;
}

/** What starting a process needs from the kernel. */
export interface Launcher {
  readonly vfs: Vfs;
  readonly processes: ProcessTable;
  /** The program for `target`, or undefined when there is none (a tool not installed). */
  programFor(target: ExecTarget): Program | undefined;
  allowsTool(tool: string): boolean;
  /** A fresh descriptor of the root directory, every process's preopen. */
  rootPreopen(): Description;
  /** Told of every program about to start, after PATH and `#!` resolution (a gate's trace). */
  exec?(path: string, argv: string[]): void;
  /** Told of each refusal (sys/refusal.ts). */
  refused?(refusal: Refusal): void;
}

/** A process to start, with everything resolved to kernel objects. */
export interface Launch {
  parent: Process | undefined;
  /** Who resolves the program (the parent, or the host API's user). */
  caller: VfsCaller;
  program: string;
  argv: string[];
  env: string[];
  /** Absolute, and the inode it names. */
  cwd: string;
  cwdIno: number;
  fds: Array<[number, Description]>;
  blob: Uint8Array;
  ignoreSigpipe: boolean;
  newGroup: boolean;
  umask: number;
}

/** Where a refused tool's process says why. */
export function refusalMessage(tool: string): string {
  return `airlock: ${tool}: not allowed by this sandbox's tool allowlist\n`;
}

/**
 * Starts the process `launch` describes; returns it at once (it runs from the scheduler).
 * ENOENT/EACCES/ENOEXEC when there is nothing to run (exec's errors).
 */
export function launch(launcher: Launcher, spec: Launch): Process {
  const argv = spec.argv.length > 0 ? spec.argv : [spec.program];
  const target = resolveExec(launcher.vfs, spec.caller, spec.cwdIno, spec.program, argv, spec.env);
  launcher.exec?.(target.path, target.argv);
  const common = {
    parent: spec.parent, argv: target.argv, env: spec.env, cwd: spec.cwd, cwdIno: spec.cwdIno, fds: spec.fds,
    preopen: launcher.rootPreopen(), blob: spec.blob, ignoreSigpipe: spec.ignoreSigpipe, newGroup: spec.newGroup, umask: spec.umask,
  };
  const tool = toolOf(target, spec.cwd);
  if (!launcher.allowsTool(tool)) {
    launcher.refused?.({ kind: 'tool', tool });
    return launcher.processes.spawnRefusal(common, refusalMessage(tool), 126);
  }
  const program = launcher.programFor(target);
  if (program === undefined) fail(Errno.NOENT, `tool ${tool} is not installed`);
  return launcher.processes.spawn(Object.assign(common, { tool, program }));
}

/** Where installed packages are; only `pkg` writes there. */
export const PACKAGE_BIN = '/usr/local/bin';
/** The tool name the allowlist knows foreign programs by (other than installed packages). */
export const FOREIGN_TOOL = 'wasi-run';

/**
 * The name a target has for the tool allowlist (and /proc): a tool's own name; an installed
 * package's command name; any other foreign program is `wasi-run`, so that an allowlist
 * cannot be passed by naming a wasm file like an allowed tool.
 */
export function toolOf(target: ExecTarget, cwd: string): string {
  if (target.kind === 'tool') return target.tool;
  const absolute = normalizeAbsolute(target.path, cwd);
  const slash = absolute.lastIndexOf('/');
  return absolute.slice(0, slash) === PACKAGE_BIN ? absolute.slice(slash + 1) : FOREIGN_TOOL;
}

/** A child of `parent` for `request` (its cwd relative to the parent's, its fds the parent's). */
export function spawnChild(launcher: Launcher, parent: Process, caller: VfsCaller, request: SpawnRequest): Process {
  const cwd = request.cwd.length > 0 ? normalizeAbsolute(request.cwd, parent.cwd) : parent.cwd;
  const cwdInode = launcher.vfs.resolve(parent.cwdIno, request.cwd.length > 0 ? request.cwd : '.', true, caller);
  if (cwdInode.kind !== 'dir') fail(Errno.NOTDIR, 'working directory is not a directory');
  const fds: Array<[number, Description]> = request.fds.map(({ childFd, parentFd }) => [childFd, parent.fds.get(parentFd)]);
  return launch(launcher, {
    parent, caller, program: request.program, argv: request.argv, env: request.env, cwd, cwdIno: cwdInode.ino, fds,
    blob: request.blob, ignoreSigpipe: request.ignoreSigpipe, newGroup: request.newGroup, umask: parent.umask,
  });
}
