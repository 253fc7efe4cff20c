// What a Python worker asks the kernel over its channel (channel.ts), and what it is told
// to run. Both sides import these types; the kernel side never trusts them (a Python worker
// is untrusted like any process) and checks every field it uses.

import type { OpenFlags } from '../sys/open.js';

/** Stat fields the Emscripten filesystem needs (times in ms). */
export interface WireStat {
  kind: 'file' | 'dir' | 'symlink' | 'chardev' | 'fifo' | 'unknown';
  ino: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  size: number;
  atimeMs: number;
  mtimeMs: number;
  ctimeMs: number;
  dev: number;
}

/** A name in the kernel's root, as the worker mounts it (kernel-fs.ts). */
export interface TopLevelEntry {
  name: string;
  kind: WireStat['kind'];
  /** A symlink's target. */
  target?: string;
}

/** The process a ready worker is to become. */
export interface StartInfo {
  argv: string[];
  env: string[];
  cwd: string;
  pid: number;
  ppid: number;
  /** isatty of descriptors 0, 1, 2. */
  tty: [boolean, boolean, boolean];
  /** Whether the kernel can interrupt a busy interpreter (KeyboardInterrupt). */
  interruptible: boolean;
  /** The interpreter's memory may not grow past this (limits.memoryBytes): MemoryError beyond. */
  memoryBytes: number;
  /**
   * The root's listing, which the worker's kernel filesystem is mounted for: sent with the
   * process because asking for it took ~45 round trips (a readdir, a stat per name, a
   * readlink per link) at every start, the largest part of a reused worker's start-up.
   */
  topLevel: TopLevelEntry[];
}

/** A child's descriptors: child fd -> the Python process's kernel fd. */
export interface WireSpawn {
  program: string;
  argv: string[];
  env: string[];
  cwd: string;
  fds: Array<[number, number]>;
  newGroup: boolean;
}

export interface WireNetRequest {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  followRedirects: boolean;
  timeoutMs: number;
}

/** A request; a payload (write data, request body) travels beside it as bytes. */
export type PythonRequest =
  | { op: 'ready'; resetMs?: number }
  | { op: 'exit'; status: number }
  | { op: 'open'; path: string; flags: OpenFlags; mode: number }
  | { op: 'close'; fd: number }
  | { op: 'read'; fd: number; max: number; position?: number }
  | { op: 'write'; fd: number; position?: number }
  | { op: 'seek'; fd: number; offset: number; whence: 'set' | 'cur' | 'end' }
  | { op: 'fstat'; fd: number }
  | { op: 'ftruncate'; fd: number; size: number }
  | { op: 'isatty'; fd: number }
  | { op: 'stat'; path: string; follow: boolean }
  | { op: 'readdir'; path: string }
  | { op: 'mkdir'; path: string; mode: number }
  | { op: 'rmdir'; path: string }
  | { op: 'unlink'; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'symlink'; target: string; path: string }
  | { op: 'readlink'; path: string }
  | { op: 'chmod'; path: string; mode: number }
  | { op: 'utimes'; path: string; atimeMs?: number; mtimeMs?: number }
  | { op: 'truncate'; path: string; size: number }
  | { op: 'chdir'; path: string }
  | { op: 'umask'; mask?: number }
  | { op: 'pipe' }
  | { op: 'poll'; fds: number[]; timeoutMs?: number }
  | { op: 'spawn'; request: WireSpawn }
  | { op: 'wait'; pid: number; noHang: boolean }
  | { op: 'kill'; pid: number; signal: number }
  | { op: 'sleep'; ms: number }
  | { op: 'deadline' }
  | { op: 'netRequest'; request: WireNetRequest }
  | { op: 'netResponse'; handle: number }
  | { op: 'netRead'; handle: number; max: number }
  | { op: 'netClose'; handle: number }
  /** The worker's snapshot, when it was asked to make one (data: the bytes, in parts). */
  | { op: 'snapshotPart'; offset: number; total: number }
  /** After an exit: the interpreter cannot be reset for another process (interpreter-reset.ts); the worker ends. */
  | { op: 'retire'; reason: string }
  /** Something went wrong inside the worker before or outside Python (shown on stderr). */
  | { op: 'fatal'; message: string };

/** The kernel's answer: a value, or a Linux errno with its reason. */
export type PythonAnswer = { ok: true; value?: unknown } | { ok: false; errno: number; message: string };
