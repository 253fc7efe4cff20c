// The resource wall under the Node sandbox child (issue 20): every child gets a cgroup of
// its own, made by the host before the child runs anything, holding the whole child — its
// kernel, every Python and WASI worker thread, whatever it keeps in the background — to
// limits.sandboxMemoryBytes of memory (an OOM kill past it) and limits.sandboxCpus of CPU
// time. The kernel's own limits (memoryBytes per process, processes) bound what programs
// ask for; this bounds what the child actually takes, whatever a bug inside it does.
//
// cgroup v2 where the host's own cgroup delegates the memory controller to its children
// (`memory` in its cgroup.subtree_control): the child's cgroup is made beneath the host's, so
// the host's own limits still hold over it. Otherwise cgroup v1: one directory per
// controller under `<controller mount>/airlock/`, as Docker's cgroupfs driver does (a v1
// host's own cgroup is usually its supervisor's to remove, and a cgroup left beneath it
// would keep it from being removed). Making a cgroup needs root (or a delegated v2
// subtree); where none can be made the child runs without, and `Sandbox.isolation` says so.
//
// The child enters its cgroup through a two-line shell wrapper that writes its own pid to
// the cgroup's procs files and then execs the real command line (bubblewrap, then Node):
// every process of the child is born inside, so nothing runs outside it for even a moment.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../process-alive.js';

export interface CgroupLimits {
  /** memory.max (v2) or memory.limit_in_bytes (v1), swap included. */
  memoryBytes: number;
  /** CPU time in cores' worth: the CFS quota per period (cpu.max, cpu.cfs_quota_us). */
  cpus: number;
}

export type CgroupVersion = 'v1' | 'v2';

/** A cgroup could be made (`cgroup`), or why not (`reason`, for `isolation.missing`). */
export type CgroupResult = { cgroup: ChildCgroup; reason?: undefined } | { cgroup?: undefined; reason: string };

const SHELL = '/bin/sh';
/** The CFS period both versions use (100 ms, the kernel's default). */
export const CPU_PERIOD_US = 100_000;
/**
 * Writes the shell's pid (which `exec` keeps for the real program) to each procs file given
 * before `--`, then becomes the command after it. A cgroup it cannot enter ends it (125).
 */
const ENTER_CGROUP =
  'for file do [ "$file" = -- ] && break; echo $$ > "$file" || { echo "airlock: cannot enter the sandbox cgroup ($file)" >&2; exit 125; }; shift; done; shift; exec "$@"';
/** Names of the cgroups this module makes: `<host pid>-<random>` (v2: prefixed `airlock-`). */
const NAME = /^(?:airlock-)?(\d+)-[0-9a-f]{12}$/;

interface Layout {
  version: CgroupVersion;
  /** Where children's cgroups are made: one directory (v2) or one per controller (v1). */
  memoryParent: string;
  /** The cpu controller's parent, if the controller is there (in v2 the same directory). */
  cpuParent: string | undefined;
  /** v2 names its cgroups `airlock-…` among the host's others. */
  prefix: string;
}

/** The cgroup filesystem as this process sees it; found once, by reading /proc. */
let probed: { layout: Layout } | { reason: string } | undefined;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** cgroup mounts from /proc/self/mountinfo: mount point, filesystem type, super options. */
function cgroupMounts(): Array<{ mountPoint: string; root: string; type: string; options: string[] }> {
  const mounts = [];
  for (const line of (readText('/proc/self/mountinfo') ?? '').split('\n')) {
    const [left, right] = line.split(' - ');
    if (left === undefined || right === undefined) continue;
    const fields = left.split(' ');
    const [type, , superOptions] = right.split(' ');
    if ((type !== 'cgroup' && type !== 'cgroup2') || fields[4] === undefined || fields[3] === undefined) continue;
    mounts.push({ mountPoint: fields[4], root: fields[3], type, options: (superOptions ?? '').split(',') });
  }
  return mounts;
}

/** This process's cgroup path in the v2 hierarchy (the `0::` line), if it has one. */
function ownV2Path(): string | undefined {
  const line = (readText('/proc/self/cgroup') ?? '').split('\n').find((l) => l.startsWith('0::'));
  return line?.slice(3);
}

function findLayout(): Layout | string {
  if (process.platform !== 'linux') return `cgroups are Linux's (this is ${process.platform})`;
  if (!existsSync(SHELL)) return `${SHELL} is missing (it moves the child into its cgroup)`;
  const mounts = cgroupMounts();
  const unified = mounts.find((m) => m.type === 'cgroup2');
  const own = ownV2Path();
  if (unified !== undefined && own !== undefined) {
    const relative = own.startsWith(unified.root) ? own.slice(unified.root.length) : own;
    const dir = join(unified.mountPoint, relative);
    const delegated = (readText(join(dir, 'cgroup.subtree_control')) ?? '').trim().split(/\s+/);
    if (delegated.includes('memory')) return { version: 'v2', memoryParent: dir, cpuParent: delegated.includes('cpu') ? dir : undefined, prefix: 'airlock-' };
  }
  const memory = mounts.find((m) => m.type === 'cgroup' && m.options.includes('memory'));
  if (memory === undefined) return unified === undefined ? 'no cgroup filesystem is mounted' : 'no memory controller: the cgroup v2 one is not delegated to this process and no cgroup v1 one is mounted';
  const cpu = mounts.find((m) => m.type === 'cgroup' && m.options.includes('cpu'));
  return { version: 'v1', memoryParent: join(memory.mountPoint, 'airlock'), cpuParent: cpu === undefined ? undefined : join(cpu.mountPoint, 'airlock'), prefix: '' };
}

/** Removes cgroups left by hosts that ended without removing theirs (only empty ones go). */
function sweepStale(layout: Layout): void {
  for (const parent of new Set([layout.memoryParent, layout.cpuParent])) {
    if (parent === undefined) continue;
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = NAME.exec(name)?.[1];
      if (pid === undefined || (layout.prefix !== '' && !name.startsWith(layout.prefix)) || processAlive(Number(pid))) continue;
      try {
        rmdirSync(join(parent, name));
      } catch {
        // Still holds processes, or another host removed it first.
      }
    }
  }
}

function layout(): { layout: Layout } | { reason: string } {
  if (probed !== undefined) return probed;
  const found = findLayout();
  probed = typeof found === 'string' ? { reason: found } : { layout: found };
  if (typeof found !== 'string') sweepStale(found);
  return probed;
}

/** Whether this machine lets the host make sandbox cgroups, and which version (for tests and docs). */
export function cgroupSupport(): { version: CgroupVersion } | { reason: string } {
  const found = layout();
  if ('reason' in found) return found;
  const result = createChildCgroup({ memoryBytes: 1 << 30, cpus: 1 });
  if (result.cgroup === undefined) return { reason: result.reason };
  void result.cgroup.remove();
  return { version: found.layout.version };
}

/** Makes the cgroup of one sandbox child, with its limits written; or says why it cannot. */
export function createChildCgroup(limits: CgroupLimits): CgroupResult {
  const found = layout();
  if ('reason' in found) return { reason: found.reason };
  const { version, memoryParent, cpuParent, prefix } = found.layout;
  const name = `${prefix}${process.pid}-${randomBytes(6).toString('hex')}`;
  const memoryDir = join(memoryParent, name);
  const cpuDir = cpuParent === undefined ? undefined : join(cpuParent, name);
  const made: string[] = [];
  try {
    mkdirSync(memoryParent, { recursive: true });
    mkdirSync(memoryDir);
    made.push(memoryDir);
    const memory = String(Math.floor(limits.memoryBytes));
    if (version === 'v2') {
      writeFileSync(join(memoryDir, 'memory.max'), memory);
      // No swap beyond the ceiling, and an OOM kill takes the whole child, never a part.
      if (existsSync(join(memoryDir, 'memory.swap.max'))) writeFileSync(join(memoryDir, 'memory.swap.max'), '0');
      writeFileSync(join(memoryDir, 'memory.oom.group'), '1');
    } else {
      writeFileSync(join(memoryDir, 'memory.limit_in_bytes'), memory);
      // memory+swap (present when the kernel accounts swap): the ceiling holds swap included.
      if (existsSync(join(memoryDir, 'memory.memsw.limit_in_bytes'))) writeFileSync(join(memoryDir, 'memory.memsw.limit_in_bytes'), memory);
    }
    const quota = String(Math.max(1000, Math.round(limits.cpus * CPU_PERIOD_US)));
    if (cpuDir !== undefined && version === 'v2') writeFileSync(join(cpuDir, 'cpu.max'), `${quota} ${CPU_PERIOD_US}`);
    else if (cpuParent !== undefined && cpuDir !== undefined) {
      mkdirSync(cpuParent, { recursive: true });
      mkdirSync(cpuDir);
      made.push(cpuDir);
      writeFileSync(join(cpuDir, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
      writeFileSync(join(cpuDir, 'cpu.cfs_quota_us'), quota);
    }
  } catch (error) {
    for (const dir of made.reverse()) removeNow(dir);
    return { reason: `no cgroup could be made (${version}): ${(error as Error).message}` };
  }
  return { cgroup: new ChildCgroup(version, made, cpuDir !== undefined) };
}

function removeNow(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * removeNow on libuv's thread pool: a memory cgroup's rmdir can wait while the kernel
 * offlines it (its charged pages), which was seen to block the host ~6 ms per ended child.
 */
async function removeLater(dir: string): Promise<boolean> {
  try {
    await rmdir(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

async function readLater(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Tries to remove the directory every 50 ms for 10 s while its last processes are reaped. */
const REMOVE_ATTEMPTS = 200;
const REMOVE_INTERVAL_MS = 50;

/** One child's cgroup: the wrapper that puts the child in it, what it saw, its removal. */
export class ChildCgroup {
  constructor(
    readonly version: CgroupVersion,
    /** The cgroup's directories: the memory one first (v1: then the cpu one). */
    readonly paths: string[],
    /** Whether a CPU quota is set. */
    readonly cpuBound: boolean,
  ) {}

  /** `program args…` started inside this cgroup. */
  wrap(program: string, args: string[]): { program: string; args: string[] } {
    return { program: SHELL, args: ['-c', ENTER_CGROUP, 'airlock-cgroup', ...this.paths.map((dir) => join(dir, 'cgroup.procs')), '--', program, ...args] };
  }

  /** Whether the kernel's OOM killer ended a process in this cgroup (read before remove()). */
  oomKilled(): boolean {
    const memoryDir = this.paths[0];
    if (memoryDir === undefined) return false;
    const text = readText(join(memoryDir, this.version === 'v2' ? 'memory.events' : 'memory.oom_control')) ?? '';
    const count = /^oom_kill (\d+)$/m.exec(text)?.[1];
    return count !== undefined && Number(count) > 0;
  }

  /**
   * SIGKILLs every process left in the cgroup (the child is the host's to end, all of it).
   * The cgroup's files are read and written off this thread; resolves once every process
   * found has been signalled.
   */
  async kill(): Promise<void> {
    await Promise.all(this.paths.map(async (dir) => {
      if (this.version === 'v2') {
        try {
          await writeFile(join(dir, 'cgroup.kill'), '1');
          return;
        } catch {
          // No cgroup.kill (before Linux 5.14), or it failed: signal each process.
        }
      }
      for (const pid of ((await readLater(join(dir, 'cgroup.procs'))) ?? '').split('\n')) {
        if (!/^\d+$/.test(pid)) continue;
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }));
  }

  /**
   * Kills what is left and removes the cgroup once its processes are reaped; resolves with
   * whether it is gone. Nothing of it runs on this thread but the bookkeeping (the rmdirs
   * are the thread pool's), so ending a child never stalls the host. Timers are unref'd: a
   * host that exits meanwhile leaves an empty cgroup, removed by the next host's sweep.
   */
  async remove(): Promise<boolean> {
    // The cpu directory (v1) first: the memory one is where the processes are counted.
    let pending = [...this.paths].reverse();
    for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt++) {
      await this.kill();
      const removed = await Promise.all(pending.map(removeLater));
      pending = pending.filter((_, i) => removed[i] !== true);
      if (pending.length === 0) return true;
      await new Promise((resolve) => setTimeout(resolve, REMOVE_INTERVAL_MS).unref());
    }
    return false;
  }
}
