// ps: the sandbox's processes from /proc, in procps's formats — the default (PID TTY TIME
// CMD), -f (full), and BSD `aux` (USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND).
// Every process belongs to the one sandbox user.

import type { Syscalls } from '../sys/syscalls.js';
import { PAGE_BYTES, TICKS, cpuTime, kernelProgram, memTotalKiB, readProcesses, uptimeSeconds, wallNowMs, writeText, type ProcInfo } from './program-io.js';

const USER = 'user';
const USAGE = `
Usage:
 ps [options]

Basic options:
 -A, -e               all processes
 a                    all with tty, including other users
 x                    processes without controlling ttys
 -p, --pid <PID>      process id (comma-separated list)

Output formats:
 -f                   full-format, including command lines
 u                    user-oriented format

 --help               display this help and exit
`;

interface PsOptions {
  all: boolean;
  withoutTty: boolean;
  withTty: boolean;
  pids: number[] | undefined;
  format: 'default' | 'full' | 'user';
}

function parse(args: string[]): PsOptions | string {
  const options: PsOptions = { all: false, withoutTty: false, withTty: false, pids: undefined, format: 'default' };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--help') return 'help';
    if (arg === '-p' || arg === '--pid' || arg.startsWith('--pid=') || (arg.startsWith('-p') && arg.length > 2)) {
      const list = arg.startsWith('--pid=') ? arg.slice(6) : arg.length > 2 && arg.startsWith('-p') ? arg.slice(2) : args[++index];
      if (list === undefined) return 'error: list of process IDs must follow -p';
      const pids = list.split(/[,\s]+/).filter(Boolean).map(Number);
      if (pids.some((pid) => !Number.isInteger(pid) || pid <= 0)) return 'error: process ID list syntax error';
      options.pids = [...(options.pids ?? []), ...pids];
    } else if (arg.startsWith('-')) {
      for (const letter of arg.slice(1)) {
        if (letter === 'e' || letter === 'A') options.all = true;
        else if (letter === 'f') options.format = 'full';
        else return `error: unsupported option -${letter}`;
      }
    } else {
      // BSD options: no dash.
      for (const letter of arg) {
        if (letter === 'a') options.withTty = true;
        else if (letter === 'x') options.withoutTty = true;
        else if (letter === 'u') options.format = 'user';
        else return `error: unsupported option (BSD syntax): ${letter}`;
      }
    }
  }
  return options;
}

function selected(options: PsOptions, process: ProcInfo, self: ProcInfo | undefined): boolean {
  if (options.pids !== undefined) return options.pids.includes(process.pid);
  if (options.all || (options.withTty && options.withoutTty)) return true;
  if (options.withTty) return process.terminal;
  if (options.withoutTty) return true;
  return process.terminal === (self?.terminal ?? false);
}

const hhmm = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

export const ps = kernelProgram('ps', async (sys, argv) => {
  const options = parse(argv.slice(1));
  if (options === 'help') return (await writeText(sys, 1, USAGE), 0);
  if (typeof options === 'string') {
    await writeText(sys, 2, `${options}\n${USAGE}`);
    return 1;
  }
  const processes = (await readProcesses(sys)).filter((process) => process.state !== 'Z');
  const self = processes.find((process) => process.pid === sys.process.pid);
  const shown = processes.filter((process) => selected(options, process, self));
  const lines = await format(sys, options.format, shown);
  await writeText(sys, 1, lines.join('\n') + '\n');
  return shown.length > 0 ? 0 : 1;
});

async function format(sys: Syscalls, kind: PsOptions['format'], processes: ProcInfo[]): Promise<string[]> {
  const tty = (process: ProcInfo): string => (process.terminal ? 'pts/0' : '?');
  const command = (process: ProcInfo): string => (process.argv.length > 0 ? process.argv.join(' ') : `[${process.comm}]`);
  if (kind === 'default') {
    return ['    PID TTY          TIME CMD', ...processes.map((p) => `${String(p.pid).padStart(7)} ${tty(p).padEnd(8)} ${cpuTime(p.cpuTicks).padStart(8)} ${p.comm}`)];
  }
  const up = await uptimeSeconds(sys);
  const now = wallNowMs(sys);
  const started = (p: ProcInfo): number => now - (up - p.startTicks / TICKS) * 1000;
  const elapsed = (p: ProcInfo): number => Math.max(up - p.startTicks / TICKS, 1e-3);
  const cpuPercent = (p: ProcInfo): number => Math.min(100 * (p.cpuTicks / TICKS / elapsed(p)), 100);
  if (kind === 'full') {
    return [
      'UID          PID    PPID  C STIME TTY          TIME CMD',
      ...processes.map((p) => `${USER.padEnd(8)} ${String(p.pid).padStart(7)} ${String(p.ppid).padStart(7)} ${String(Math.floor(cpuPercent(p))).padStart(2)} ${hhmm(started(p))} ${tty(p).padEnd(8)} ${cpuTime(p.cpuTicks).padStart(8)} ${command(p)}`),
    ];
  }
  const totalKiB = Math.max(await memTotalKiB(sys), 1);
  const minutes = (ticks: number): string => {
    const seconds = Math.floor(ticks / TICKS);
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  };
  return [
    'USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND',
    ...processes.map((p) => {
      const rssKiB = (p.rssPages * PAGE_BYTES) / 1024;
      const stat = p.state + (p.pid === p.pgid ? 's' : '') + (p.terminal ? '+' : '');
      return [
        USER.padEnd(8),
        String(p.pid).padStart(7),
        cpuPercent(p).toFixed(1).padStart(4),
        ((100 * rssKiB) / totalKiB).toFixed(1).padStart(4),
        String(Math.round(p.vsizeBytes / 1024)).padStart(6),
        String(Math.round(rssKiB)).padStart(5),
        tty(p).padEnd(8),
        stat.padEnd(4),
        hhmm(started(p)),
        minutes(p.cpuTicks).padStart(6),
        command(p),
      ].join(' ');
    }),
  ];
}
