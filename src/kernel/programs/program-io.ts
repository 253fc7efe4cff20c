// What the kernel's own programs (ps, top, less, more, man) share: reading and writing
// through the syscall core as any process does, their options' errors, and the process
// table as /proc shows it.

import { Errno, KernelError } from '../errno.js';
import type { ExternalProgram } from '../sys/external-program.js';
import { AT_FDCWD, type Syscalls } from '../sys/syscalls.js';
import type { Process } from '../proc/process.js';
import { concatBytes } from '../../protocol/bytes.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A program written in TypeScript: its body gets the process's argv and system calls. */
export function kernelProgram(name: string, body: (sys: Syscalls, argv: string[], process: Process) => Promise<number>): ExternalProgram {
  return { name, run: (process, sys) => body(sys, process.argv, process) };
}

/** The tool name a process was started as (argv[0] without its directory). */
export function toolName(argv: string[], fallback: string): string {
  return (argv[0] ?? fallback).split('/').pop() || fallback;
}

export async function writeText(sys: Syscalls, fd: number, text: string): Promise<void> {
  await sys.complete(sys.writeAll(fd, encoder.encode(text)));
}

/** Everything readable from `fd` until end of file. */
export async function readAll(sys: Syscalls, fd: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const part = (await sys.complete(sys.read(fd, 65536))).slice();
    if (part.length === 0) break;
    parts.push(part);
    size += part.length;
  }
  return concatBytes(parts, size);
}

/** A whole file as text (UTF-8, invalid bytes replaced). */
export async function readText(sys: Syscalls, path: string): Promise<string> {
  const fd = sys.openat(AT_FDCWD, path, { read: true });
  try {
    return decoder.decode(await readAll(sys, fd));
  } finally {
    sys.close(fd);
  }
}

/** The message strerror gives for a kernel errno (the few these programs meet). */
export function errorText(error: unknown): string {
  if (!(error instanceof KernelError)) return error instanceof Error ? error.message : String(error);
  switch (error.errno) {
    case Errno.NOENT:
      return 'No such file or directory';
    case Errno.ACCES:
      return 'Permission denied';
    case Errno.ISDIR:
      return 'Is a directory';
    case Errno.NOTDIR:
      return 'Not a directory';
    case Errno.NXIO:
      return 'No such device or address';
    default:
      return error.message;
  }
}

/** A process as ps and top see it: /proc/<pid>/stat and cmdline. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  comm: string;
  /** R, S or Z. */
  state: string;
  /** On the terminal (tty_nr not 0). */
  terminal: boolean;
  cpuTicks: number;
  startTicks: number;
  vsizeBytes: number;
  rssPages: number;
  /** The command line; empty for a process that has exited. */
  argv: string[];
}

/** Clock ticks per second in /proc/<pid>/stat. */
export const TICKS = 100;
export const PAGE_BYTES = 4096;

/** The processes of the sandbox, by pid, read from /proc (those that end meanwhile are skipped). */
export async function readProcesses(sys: Syscalls): Promise<ProcInfo[]> {
  const pids = sys
    .listdir(AT_FDCWD, '/proc')
    .map((entry) => entry.name)
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => a - b);
  const processes: ProcInfo[] = [];
  for (const pid of pids) {
    try {
      const stat = parseStat(await readText(sys, `/proc/${pid}/stat`));
      const cmdline = await readText(sys, `/proc/${pid}/cmdline`);
      if (stat !== undefined) processes.push({ ...stat, argv: cmdline.split('\0').filter((arg, index, all) => arg !== '' || index < all.length - 1) });
    } catch (error) {
      if (!(error instanceof KernelError)) throw error;
    }
  }
  return processes;
}

function parseStat(text: string): Omit<ProcInfo, 'argv'> | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const [state = '?', ...rest] = text.slice(close + 2).trim().split(' ');
  const field = (n: number): number => Number(rest[n - 4] ?? 0);
  return {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    state,
    ppid: field(4),
    pgid: field(5),
    terminal: field(7) !== 0,
    cpuTicks: field(14) + field(15),
    startTicks: field(22),
    vsizeBytes: field(23),
    rssPages: field(24),
  };
}

/** Seconds since the sandbox booted (/proc/uptime). */
export async function uptimeSeconds(sys: Syscalls): Promise<number> {
  return Number((await readText(sys, '/proc/uptime')).split(' ')[0]);
}

/** Total memory in KiB (/proc/meminfo's MemTotal). */
export async function memTotalKiB(sys: Syscalls): Promise<number> {
  return Number(/MemTotal:\s*(\d+)/.exec(await readText(sys, '/proc/meminfo'))?.[1] ?? 0);
}

/** CPU time as ps prints it: [DD-]HH:MM:SS. */
export function cpuTime(ticks: number): string {
  const seconds = Math.floor(ticks / TICKS);
  const days = Math.floor(seconds / 86400);
  const clock = [Math.floor(seconds / 3600) % 24, Math.floor(seconds / 60) % 60, seconds % 60].map((n) => String(n).padStart(2, '0')).join(':');
  return days > 0 ? `${days}-${clock}` : clock;
}

/** The wall clock now, in ms since the epoch (the sandbox's realtime clock). */
export function wallNowMs(sys: Syscalls): number {
  return Number(sys.clock(0) / 1_000_000n);
}

/** An environment variable of the process. */
export function envOf(sys: Syscalls, name: string): string | undefined {
  const prefix = `${name}=`;
  return sys.environ().find((entry) => entry.startsWith(prefix))?.slice(prefix.length);
}
