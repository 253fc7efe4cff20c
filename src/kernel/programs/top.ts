// top: the sandbox's processes and their CPU use, refreshed on the terminal every -d
// seconds until q (or -n frames); -b (or stdout not a terminal) prints frames one after the
// other. procps's layout; %CPU is the CPU time a process used since the previous frame.

import type { Syscalls } from '../sys/syscalls.js';
import { PAGE_BYTES, TICKS, kernelProgram, memTotalKiB, readProcesses, readText, uptimeSeconds, wallNowMs, writeText, type ProcInfo } from './program-io.js';
import { ALT_SCREEN_OFF, ALT_SCREEN_ON, decodeKeys, openScreen, type Screen } from './screen.js';

const decoder = new TextDecoder();
const USAGE = 'Usage:\n  top -[bh] [-d secs] [-n max]\n';

interface TopOptions {
  batch: boolean;
  delayMs: number;
  frames: number;
}

function parse(args: string[]): TopOptions | string {
  const options: TopOptions = { batch: false, delayMs: 3000, frames: Infinity };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '-b') options.batch = true;
    else if (/^-[dn]/.test(arg)) {
      const value = arg.length > 2 ? arg.slice(2) : args[++index];
      const number = Number(value);
      if (value === undefined || !Number.isFinite(number) || number < 0) return `top: bad ${arg[1] === 'd' ? 'delay interval' : 'iterations argument'} '${value ?? ''}'`;
      if (arg[1] === 'd') options.delayMs = Math.max(100, number * 1000);
      else options.frames = Math.floor(number) || 1;
    } else return `top: unknown option '${arg.replace(/^-/, '')}'`;
  }
  return options;
}

const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 19);

function upText(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

function cpuPlus(ticks: number): string {
  const hundredths = Math.floor((ticks * 100) / TICKS);
  const seconds = Math.floor(hundredths / 100);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}.${String(hundredths % 100).padStart(2, '0')}`;
}

/** Builds frames: %CPU is measured between one frame and the next. */
class Frames {
  private previous = new Map<number, number>();
  private previousAt: number | undefined;

  constructor(private readonly sys: Syscalls) {}

  async next(rows: number): Promise<string[]> {
    const sys = this.sys;
    const processes = await readProcesses(sys);
    const up = await uptimeSeconds(sys);
    const totalKiB = Math.max(await memTotalKiB(sys), 1);
    const load = (await readText(sys, '/proc/loadavg')).split(' ').slice(0, 3).join(', ');
    const interval = this.previousAt === undefined ? up : Math.max(up - this.previousAt, 1e-3);
    const cpu = (p: ProcInfo): number => {
      const before = this.previousAt === undefined ? 0 : (this.previous.get(p.pid) ?? 0);
      return Math.min(100, (100 * (p.cpuTicks - before)) / TICKS / interval);
    };
    const shown = processes.map((p) => ({ p, cpu: cpu(p) })).sort((a, b) => b.cpu - a.cpu || a.p.pid - b.p.pid);
    this.previous = new Map(processes.map((p) => [p.pid, p.cpuTicks]));
    this.previousAt = up;
    const count = (state: string): number => processes.filter((p) => p.state === state).length;
    const usedKiB = processes.reduce((sum, p) => sum + (p.rssPages * PAGE_BYTES) / 1024, 0);
    const busy = Math.min(100, shown.reduce((sum, { cpu: c }) => sum + c, 0));
    const mib = (kib: number): string => (kib / 1024).toFixed(1).padStart(8);
    const lines = [
      `top - ${clock(wallNowMs(sys))} up ${upText(up)},  1 user,  load average: ${load}`,
      `Tasks: ${String(processes.length).padStart(3)} total, ${String(count('R')).padStart(3)} running, ${String(count('S')).padStart(3)} sleeping,   0 stopped, ${String(count('Z')).padStart(3)} zombie`,
      `%Cpu(s): ${busy.toFixed(1).padStart(4)} us,  0.0 sy,  0.0 ni, ${(100 - busy).toFixed(1).padStart(4)} id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st`,
      `MiB Mem : ${mib(totalKiB)} total, ${mib(totalKiB - usedKiB)} free, ${mib(usedKiB)} used, ${mib(0)} buff/cache`,
      `MiB Swap: ${mib(0)} total, ${mib(0)} free, ${mib(0)} used. ${mib(totalKiB - usedKiB)} avail Mem`,
      '',
      '    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND',
    ];
    for (const { p, cpu: c } of shown.slice(0, Math.max(0, rows - lines.length))) {
      const res = (p.rssPages * PAGE_BYTES) / 1024;
      lines.push(
        [
          String(p.pid).padStart(7),
          'user'.padEnd(8),
          '20'.padStart(3),
          '0'.padStart(3),
          String(Math.round(p.vsizeBytes / 1024)).padStart(7),
          String(Math.round(res)).padStart(6),
          '0'.padStart(6),
          p.state,
          c.toFixed(1).padStart(5),
          ((100 * res) / totalKiB).toFixed(1).padStart(5),
          cpuPlus(p.cpuTicks).padStart(9),
          p.comm,
        ].join(' '),
      );
    }
    return lines;
  }
}

export const top = kernelProgram('top', async (sys, argv) => {
  const options = parse(argv.slice(1));
  if (options === 'help') return (await writeText(sys, 1, USAGE), 0);
  if (typeof options === 'string') return (await writeText(sys, 2, `${options}\n${USAGE}`), 1);
  const frames = new Frames(sys);
  if (options.batch || !sys.isatty(1)) {
    for (let frame = 0; frame < options.frames; frame++) {
      if (frame > 0) await sys.complete(sys.sleep(options.delayMs));
      await writeText(sys, 1, `${frame > 0 ? '\n' : ''}${(await frames.next(Infinity)).join('\n')}\n`);
    }
    return 0;
  }
  const screen = openScreen(sys);
  try {
    await writeText(sys, 1, `${ALT_SCREEN_ON}\x1b[?25l`);
    await interactive(sys, screen, frames, options);
  } finally {
    await writeText(sys, 1, `\x1b[?25h${ALT_SCREEN_OFF}`);
    screen.restore();
  }
  return 0;
});

async function interactive(sys: Syscalls, screen: Screen, frames: Frames, options: TopOptions): Promise<void> {
  for (let frame = 0; frame < options.frames; frame++) {
    const size = sys.ttySize(screen.fd);
    const lines = (await frames.next(size.rows)).map((line) => line.slice(0, size.cols));
    await writeText(sys, 1, `\x1b[H${lines.join('\x1b[K\r\n')}\x1b[K\x1b[J`);
    if (frame + 1 >= options.frames) return;
    // Waits for the delay or a key: q (or Ctrl-C) quits, space refreshes now.
    const deadline = performance.now() + options.delayMs;
    for (let left = options.delayMs; left > 0; left = deadline - performance.now()) {
      const ready = await sys.complete(sys.pollRead([screen.fd], Math.ceil(left)));
      if (ready.length === 0) break;
      const bytes = await sys.complete(sys.read(screen.fd, 256));
      if (bytes.length === 0) return;
      const keys = decodeKeys(decoder.decode(bytes.slice()));
      if (keys.some((key) => key === 'q' || key === 'Q' || key === '\x03')) return;
      if (keys.includes(' ') || keys.includes('enter')) break;
    }
  }
}
