// A minimal /proc: self, <pid>/{cmdline,cwd,environ,stat,status,fd/N}, and the system files
// programs commonly read (version, uptime, cpuinfo, meminfo, loadavg, mounts).
// /proc/<pid>/fd/N are symlinks that stand for the open descriptor: opening one dups it.

import type { DirInode, FileInode, Inode, SymlinkInode } from './inode.js';
import { nowNs } from './inode.js';
import type { VirtualTree } from './virtual-tree.js';
import type { VfsCaller } from './caller.js';
import { VIRTUAL_INO_BASE, type FdLinkInode } from './vfs.js';

/** What /proc shows of a process. */
export interface ProcessView {
  pid: number;
  ppid: number;
  pgid: number;
  /** When it started, in ms since the sandbox booted. */
  startMs: number;
  /** CPU time so far in ms (proc/process.ts cpuMs). */
  cpuMs: number;
  /** Memory it holds (a wasm instance's linear memory); 0 when not known. */
  memoryBytes: number;
  /** Whether its stdin, stdout or stderr is the terminal (ps's TTY column). */
  terminal: boolean;
  argv: string[];
  env: string[];
  cwd: string;
  state: 'running' | 'sleeping' | 'zombie';
  /** Open descriptors and what `readlink` shows for each. */
  fds: Array<[number, string]>;
}

export interface ProcessSource {
  pids(): number[];
  view(pid: number): ProcessView | undefined;
  uptimeSeconds(): number;
  memoryBytes(): number;
}

const encoder = new TextEncoder();

export class Procfs implements VirtualTree {
  private readonly inoByPath = new Map<string, number>();
  private readonly cache = new Map<number, Inode>();
  private nextIno = VIRTUAL_INO_BASE;

  constructor(
    private readonly rootIno: number,
    private readonly source: ProcessSource,
    private readonly versionText: string,
  ) {}

  owns(ino: number): boolean {
    return this.cache.get(ino)?.kind === 'dir';
  }

  get(ino: number): Inode | undefined {
    return this.cache.get(ino);
  }

  lookup(dir: DirInode, name: string, caller: VfsCaller): Inode | undefined {
    const dirPath = this.pathOf(dir);
    if (dirPath === undefined) return undefined;
    return this.make(`${dirPath}/${name}`, dir.ino, caller);
  }

  list(dir: DirInode, caller: VfsCaller): Array<[string, Inode]> {
    const dirPath = this.pathOf(dir);
    if (dirPath === undefined) return [];
    const names = this.namesIn(dirPath, caller);
    const out: Array<[string, Inode]> = [];
    for (const name of names) {
      const inode = this.make(`${dirPath}/${name}`, dir.ino, caller);
      if (inode !== undefined) out.push([name, inode]);
    }
    return out;
  }

  private pathOf(dir: DirInode): string | undefined {
    if (dir.ino === this.rootIno) return '/proc';
    for (const [path, ino] of this.inoByPath) if (ino === dir.ino) return path;
    return undefined;
  }

  private namesIn(dirPath: string, caller: VfsCaller): string[] {
    if (dirPath === '/proc') {
      return ['self', 'version', 'uptime', 'cpuinfo', 'meminfo', 'loadavg', 'mounts', ...this.source.pids().map(String)];
    }
    const parts = dirPath.split('/');
    const pid = Number(parts[2]);
    const view = this.source.view(pid);
    if (view === undefined) return [];
    if (parts.length === 3) return ['cmdline', 'cwd', 'environ', 'stat', 'status', 'fd'];
    if (parts.length === 4 && parts[3] === 'fd') return view.fds.map(([fd]) => String(fd));
    void caller;
    return [];
  }

  private make(path: string, parentIno: number, caller: VfsCaller): Inode | undefined {
    const parts = path.split('/');
    if (parts.length === 3) {
      const name = parts[2] as string;
      if (name === 'self') return this.symlink(path, String(caller.pid));
      const system = this.systemFile(name);
      if (system !== undefined) return this.file(path, system);
      const pid = Number(name);
      if (!Number.isInteger(pid) || this.source.view(pid) === undefined) return undefined;
      return this.dir(path, parentIno);
    }
    const pid = Number(parts[2]);
    const view = this.source.view(pid);
    if (view === undefined) return undefined;
    if (parts.length === 4) {
      switch (parts[3]) {
        case 'cmdline':
          return this.file(path, view.argv.map((a) => a + '\0').join(''));
        case 'environ':
          return this.file(path, view.env.map((a) => a + '\0').join(''));
        case 'cwd':
          return this.symlink(path, view.cwd);
        case 'stat':
          return this.file(path, statText(view));
        case 'status':
          return this.file(path, statusText(view));
        case 'fd':
          return this.dir(path, parentIno);
        default:
          return undefined;
      }
    }
    if (parts.length === 5 && parts[3] === 'fd') {
      const fd = Number(parts[4]);
      const entry = view.fds.find(([n]) => n === fd);
      if (entry === undefined) return undefined;
      const link = this.symlink(path, entry[1]) as FdLinkInode;
      link.fdRef = { pid, fd };
      return link;
    }
    return undefined;
  }

  private systemFile(name: string): string | undefined {
    switch (name) {
      case 'version':
        return this.versionText + '\n';
      case 'uptime': {
        const up = this.source.uptimeSeconds().toFixed(2);
        return `${up} ${up}\n`;
      }
      case 'cpuinfo':
        return 'processor\t: 0\nvendor_id\t: Airlock\nmodel name\t: WebAssembly\n\n';
      case 'meminfo': {
        const kb = Math.round(this.source.memoryBytes() / 1024);
        return `MemTotal:       ${kb} kB\nMemFree:        ${kb} kB\nMemAvailable:   ${kb} kB\n`;
      }
      case 'loadavg':
        return '0.00 0.00 0.00 1/1 1\n';
      case 'mounts':
        return 'airlockfs / airlockfs rw 0 0\nproc /proc proc ro 0 0\n';
      default:
        return undefined;
    }
  }

  private inoFor(path: string): number {
    let ino = this.inoByPath.get(path);
    if (ino === undefined) {
      ino = this.nextIno++;
      this.inoByPath.set(path, ino);
    }
    return ino;
  }

  private common(path: string) {
    const now = nowNs();
    return { ino: this.inoFor(path), uid: 1000, gid: 1000, atimeNs: now, mtimeNs: now, ctimeNs: now, gen: 0, writable: false };
  }

  private file(path: string, text: string): FileInode {
    const data = encoder.encode(text);
    const inode: FileInode = { kind: 'file', ...this.common(path), mode: 0o444, data, size: data.length };
    this.cache.set(inode.ino, inode);
    return inode;
  }

  private symlink(path: string, target: string): SymlinkInode {
    const inode: SymlinkInode = { kind: 'symlink', ...this.common(path), mode: 0o777, target };
    this.cache.set(inode.ino, inode);
    return inode;
  }

  private dir(path: string, parent: number): DirInode {
    const inode: DirInode = { kind: 'dir', ...this.common(path), mode: 0o555, entries: new Map(), parent };
    this.cache.set(inode.ino, inode);
    return inode;
  }
}

/** Clock ticks per second in /proc/<pid>/stat (sysconf(_SC_CLK_TCK) on Linux). */
export const CLOCK_TICKS = 100;
const PAGE_BYTES = 4096;
/** The terminal's device number (136:0, /dev/pts/0) in tty_nr. */
const PTS0 = 136 << 8;

function nameOf(view: ProcessView): string {
  return ((view.argv[0] ?? '').split('/').pop() ?? '').slice(0, 15);
}

function statusText(view: ProcessView): string {
  const state = view.state === 'running' ? 'R (running)' : view.state === 'sleeping' ? 'S (sleeping)' : 'Z (zombie)';
  const memory = `VmSize:\t${Math.round(view.memoryBytes / 1024)} kB\nVmRSS:\t${Math.round(view.memoryBytes / 1024)} kB\n`;
  return `Name:\t${nameOf(view)}\nState:\t${state}\nPid:\t${view.pid}\nPPid:\t${view.ppid}\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n${memory}Threads:\t1\n`;
}

/**
 * /proc/<pid>/stat in Linux's layout (proc(5)): the fields ps and top read — state, ppid,
 * pgrp, session, tty_nr, utime (all CPU time is user time here), starttime, vsize, rss —
 * and zeros for the rest, 52 fields in all.
 */
function statText(view: ProcessView): string {
  const state = view.state === 'running' ? 'R' : view.state === 'sleeping' ? 'S' : 'Z';
  const ticks = (ms: number): number => Math.floor((ms * CLOCK_TICKS) / 1000);
  const fields: number[] = new Array<number>(49).fill(0);
  // Index i here is field i + 4 of proc(5) (after pid, comm and state).
  fields[0] = view.ppid;
  fields[1] = view.pgid;
  fields[2] = 1;
  fields[3] = view.terminal ? PTS0 : 0;
  fields[4] = -1;
  fields[10] = ticks(view.cpuMs);
  fields[14] = 20;
  fields[16] = 1;
  fields[18] = ticks(view.startMs);
  fields[19] = view.memoryBytes;
  fields[20] = Math.ceil(view.memoryBytes / PAGE_BYTES);
  return `${view.pid} (${nameOf(view)}) ${state} ${fields.join(' ')}\n`;
}
