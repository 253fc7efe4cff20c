// Issue #21's figures: what one sandbox costs and how fast it starts, forks and runs Python
// back to back. Memory is read from /proc: every sandbox is one child process tree of this
// host (the cgroup wrapper execs bubblewrap, which starts Node: src/host/node/child-process.ts);
// its RSS counts the Node binary's shared text once per child, its Pss (smaps_rollup)
// divides shared pages among the processes that map them, which is what a machine full of
// sandboxes really pays. Both are printed; Pss is the truer figure for density.
//
// The 100-sandbox part is bounded: it checks MemAvailable first and creates fewer (saying
// why) where the machine cannot hold 100, and stops creating after CREATE_BUDGET_MS.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Sandbox } from '../src/host/node/index.js';
import { CHILD_V8_FLAGS } from '../src/host/node/child-process.js';
import { kernelBundlePath } from '../src/host/node/kernel-bundle.js';
import { pythonSnapshotReady } from '../src/host/python/node-snapshot.js';
import { createTestKernel } from '../tests/helpers/test-kernel.js';
import { tabMemory } from './browser-tab.js';
import { NO_MEMORY, processMemory, sumMemory, type ProcessMemory } from './proc-memory.js';
import { percentile, type BenchRow } from './report.js';

const MIB = 1024 * 1024;
/** What one sandbox is assumed to take when deciding how many fit (above the 90 MiB). */
const ASSUMED_SANDBOX_BYTES = 150 * MIB;
/** Left to the rest of the (shared) machine whatever the benchmark does. */
const RESERVE_BYTES = 4 * 1024 * MIB;
/** Creating the 100 sandboxes stops here, whatever the count reached. */
const CREATE_BUDGET_MS = 240_000;
/** Idle means: the child finished its start-up work (tier-up of wasm code, GC) a while ago. */
const SETTLE_MS = 3000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A sandbox's process tree: its memory summed (file pages mostly the Node binary's, shared). */
export interface TreeMemory extends ProcessMemory {
  root: number;
  /** Start time of the tree's root in clock ticks since boot (/proc/<pid>/stat field 22). */
  started: number;
}

function childPids(pid: number): number[] {
  const pids: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return pids; // gone meanwhile
  }
  for (const task of tasks) {
    try {
      pids.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      // the thread ended while we read
    }
  }
  return pids;
}

function treePids(root: number): number[] {
  return [root, ...childPids(root).flatMap(treePids)];
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** This host's sandbox child trees (those running the kernel bundle), the warm spare included. */
export function sandboxTrees(): TreeMemory[] {
  const trees: TreeMemory[] = [];
  for (const root of childPids(process.pid)) {
    const pids = treePids(root);
    if (!pids.some((pid) => commandLine(pid).includes('kernel.mjs'))) continue;
    const stat = readFileSync(`/proc/${root}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), which ends at the last ')'.
    const started = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    trees.push({ root, started, ...sumMemory(pids.map(processMemory)) });
  }
  return trees;
}

/** The trees of the sandboxes in use: all but the warm spare, which started last. */
function inUseTrees(): TreeMemory[] {
  const trees = sandboxTrees().sort((a, b) => a.started - b.started);
  return trees.slice(0, -1);
}

function memAvailableBytes(): number {
  const line = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
  return Number(line?.[1] ?? 0) * 1024;
}

/** How many sandboxes this machine can hold now (at most `wanted`), and why fewer if so. */
function affordable(wanted: number): { count: number; reason?: string } {
  const available = memAvailableBytes();
  const count = Math.max(1, Math.min(wanted, Math.floor((available - RESERVE_BYTES) / ASSUMED_SANDBOX_BYTES)));
  if (count >= wanted) return { count };
  return { count, reason: `MemAvailable is ${(available / MIB).toFixed(0)} MiB; keeping ${(RESERVE_BYTES / MIB).toFixed(0)} MiB free at ${(ASSUMED_SANDBOX_BYTES / MIB).toFixed(0)} MiB per sandbox leaves room for ${count}` };
}

async function memoryAt(wanted: number): Promise<BenchRow[]> {
  const plan = affordable(wanted);
  if (plan.reason !== undefined) console.log(`bench: density: ${plan.count} sandboxes instead of ${wanted}: ${plan.reason}`);
  const sandboxes: Sandbox[] = [];
  const rows: BenchRow[] = [];
  try {
    // The warm spare of earlier parts is idle; it is there after the creations too.
    await untilChildrenIdle(10_000);
    const availableBefore = memAvailableBytes();
    const bare = await bareNodeMemory();
    const started = performance.now();
    while (sandboxes.length < plan.count) {
      if (performance.now() - started > CREATE_BUDGET_MS) {
        console.log(`bench: density: stopped creating at ${sandboxes.length} of ${plan.count} sandboxes after ${CREATE_BUDGET_MS / 1000} s`);
        break;
      }
      sandboxes.push(await Sandbox.create({}));
    }
    const createMs = performance.now() - started;
    // Every sandbox answers, and answers correctly.
    const answers = await Promise.all(sandboxes.map((sandbox, i) => sandbox.run(`echo sandbox ${i}`)));
    const wrong = answers.filter((answer, i) => answer.stdout !== `sandbox ${i}\n`).length;
    if (wrong > 0) throw new Error(`${wrong} of ${sandboxes.length} sandboxes answered wrongly`);
    await pause(SETTLE_MS);
    const trees = inUseTrees();
    if (trees.length !== sandboxes.length) throw new Error(`found ${trees.length} sandbox processes for ${sandboxes.length} sandboxes`);
    const total = sumMemory(trees);
    const [rss, pss, anon, file] = [total.rssKiB, total.pssKiB, total.anonKiB, total.fileKiB].map((kib) => kib / 1024 / trees.length);
    const taken = (availableBefore - memAvailableBytes()) / MIB / trees.length;
    const charged = sandboxes.map(cgroupMemoryBytes);
    const n = sandboxes.length;
    const was = n === 100 ? 'was ~90 MiB' : 'issue: ~90 MiB at 100';
    const of = `${n} sandbox${n === 1 ? '' : 'es'}`;
    // A bare Node process is the floor of a Node child's RSS: its file pages are the binary's.
    const reference = (kib: number): Pick<BenchRow, 'reference' | 'referenceLabel'> => ({ reference: kib / 1024, referenceLabel: 'a bare node process' });
    rows.push(
      { group: 'density', name: `RSS per idle sandbox, ${of} (process tree, shared text counted per child)`, value: rss, unit: 'MiB', ...reference(bare.rssKiB), target: `≤ 30 MiB (${was}); cannot be under the bare node's` },
      { group: 'density', name: `RssAnon per idle sandbox, ${of} (the tree's own pages)`, value: anon, unit: 'MiB', ...reference(bare.anonKiB) },
      { group: 'density', name: `RssFile per idle sandbox, ${of} (file pages: the node binary's, shared by every node process)`, value: file, unit: 'MiB', ...reference(bare.fileKiB) },
      { group: 'density', name: `Pss per idle sandbox, ${of} (shared pages divided)`, value: pss, unit: 'MiB', ...reference(bare.pssKiB), target: '≤ 30 MiB' },
      { group: 'density', name: `MemAvailable taken per idle sandbox, ${of} (the machine's view; others' use shows too)`, value: taken, unit: 'MiB' },
    );
    if (charged.every((bytes) => bytes !== undefined)) {
      const perSandbox = charged.reduce<number>((sum, bytes) => sum + (bytes ?? 0), 0) / MIB / n;
      rows.push({ group: 'density', name: `memory the kernel charges each idle sandbox's cgroup, ${of} (its own pages and the page cache it brought in)`, value: perSandbox, unit: 'MiB' });
    }
    if (wanted === 100) rows.push({ group: 'density', name: `creating ${n} sandboxes one after another`, value: createMs / 1000, unit: 's', target: n === 100 ? '(was 9.9 s)' : '(was 9.9 s for 100)' });
  } finally {
    await Promise.all(sandboxes.map((sandbox) => sandbox.destroy()));
  }
  return rows;
}

/** What the kernel charges the sandbox's cgroup (memory.current, v1 memory.usage_in_bytes), if it has one. */
function cgroupMemoryBytes(sandbox: Sandbox): number | undefined {
  const cgroup = sandbox.isolation?.cgroup;
  const memoryDir = cgroup?.paths[0];
  if (cgroup === undefined || cgroup === null || memoryDir === undefined) return undefined;
  try {
    return Number(readFileSync(`${memoryDir}/${cgroup.version === 'v2' ? 'memory.current' : 'memory.usage_in_bytes'}`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The memory of a bare Node process idling (`node -e 'setInterval(...)'`), the floor of any Node child's. */
async function bareNodeMemory(): Promise<ProcessMemory> {
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await pause(SETTLE_MS);
    return bare.pid === undefined ? NO_MEMORY : processMemory(bare.pid);
  } finally {
    bare.kill('SIGKILL');
  }
}

/** A few hundred processes, a sort and 500 files: what grows V8's young generation in the child. */
const WORKLOAD = 'for i in $(seq 300); do echo $i | cat > /dev/null; done; seq 200000 | sort | wc -l; mkdir -p work; for i in $(seq 500); do echo $i > work/$i; done';
/** V8 shrinks a heap it no longer needs only some seconds into idling. */
const USED_SETTLE_MS = 10_000;

/** One sandbox idle after it has done some work (the rows above measure it fresh). */
async function memoryAfterWork(): Promise<BenchRow[]> {
  const sandbox = await Sandbox.create({});
  try {
    const result = await sandbox.run(WORKLOAD, { timeoutMs: 120_000 });
    if (result.stdout !== '200000\n') throw new Error(`the workload printed ${JSON.stringify(result.stdout)}: ${result.stderr}`);
    await pause(USED_SETTLE_MS);
    const [tree] = inUseTrees();
    if (tree === undefined) throw new Error('found no sandbox process');
    return [
      { group: 'density', name: 'RSS of one sandbox idle after 300 processes, a 200,000-line sort and 500 files', value: tree.rssKiB / 1024, unit: 'MiB', target: '≤ 30 MiB' },
      { group: 'density', name: 'Pss of the same', value: tree.pssKiB / 1024, unit: 'MiB', target: '≤ 30 MiB' },
    ];
  } finally {
    await sandbox.destroy();
  }
}

/** CPU time of a thread so far (ns), from /proc/<pid>/schedstat (the main thread for a pid). */
function threadCpuNs(pid: number | 'self'): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

/** The main-thread CPU time (ns) of every sandbox child's Node process (those running the kernel bundle). */
function kernelCpu(): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const root of childPids(process.pid)) {
    for (const pid of treePids(root)) if (commandLine(pid).includes('kernel.mjs')) cpu.set(pid, threadCpuNs(pid));
  }
  return cpu;
}

/**
 * Waits until every sandbox child is idle (no CPU used over 100 ms), at most `maxMs`: the
 * warm spare has then finished starting, as it would between real uses. A fixed pause does
 * not do on a loaded machine, where starting a child can take seconds.
 */
async function untilChildrenIdle(maxMs: number): Promise<void> {
  const deadline = performance.now() + maxMs;
  let before = kernelCpu();
  while (performance.now() < deadline) {
    await pause(100);
    const now = kernelCpu();
    if ([...now].every(([pid, ns]) => before.get(pid) === ns)) return;
    before = now;
  }
}

async function forkTime(): Promise<BenchRow[]> {
  const sandbox = await Sandbox.create({});
  const forks: Sandbox[] = [];
  try {
    const made = await sandbox.run('mkdir -p data && for i in $(seq 1000); do echo "file $i" > data/f$i; done; ls data | wc -l');
    if (made.stdout.trim() !== '1000') throw new Error(`making 1,000 files printed ${made.stdout}`);
    // Shell state: a variable, a function, an alias and a working directory, kept by the session.
    await sandbox.run('export DENSITY=kept; greet() { echo "hi $1"; }; alias ll="ls -l"; cd data');
    const samples: number[] = [];
    // CPU is what a loaded machine cannot inflate the way it does wall time: this process's
    // main thread, and the child's that became the fork (the spare that used the most since).
    const hostCpu: number[] = [];
    const childCpu: number[] = [];
    for (let i = 0; i < 30; i++) {
      await untilChildrenIdle(10_000);
      const kernelsBefore = kernelCpu();
      const hostBefore = threadCpuNs('self');
      const started = performance.now();
      const copy = await sandbox.fork();
      samples.push(performance.now() - started);
      hostCpu.push((threadCpuNs('self') - hostBefore) / 1e6);
      let child = 0;
      for (const [pid, ns] of kernelCpu()) child = Math.max(child, ns - (kernelsBefore.get(pid) ?? ns));
      childCpu.push(child / 1e6);
      forks.push(copy);
      if (i === 0) {
        const seen = await copy.run('echo "$DENSITY $(pwd) $(ls | wc -l)"; greet fork');
        if (seen.stdout !== 'kept /home/user/data 1000\nhi fork\n') throw new Error(`the fork saw ${JSON.stringify(seen.stdout)}`);
      }
      await forks.pop()?.destroy();
    }
    const forked = await forkMemory(sandbox, forks);
    return [
      { group: 'density', name: 'fork() with 1,000 files and shell state, p50', value: percentile(samples, 0.5), unit: 'ms', target: '≤ 5 ms (was 6.2-6.9 ms on a quiet machine before the shared mirror and the bigger warm-up; 16 ms before the ready spare; 27 ms, 31 ms at 200 files before that)' },
      { group: 'density', name: 'fork() with 1,000 files and shell state, p99 (of 30)', value: percentile(samples, 0.99), unit: 'ms' },
      { group: 'density', name: 'fork(): CPU of the host\'s main thread, p50', value: percentile(hostCpu, 0.5), unit: 'ms', target: '(was 4.5-5.0 ms at load 3-8 before the ready spare and the encoded table; 8.6-10.9 ms before that)' },
      { group: 'density', name: 'fork(): CPU of the new child\'s main thread, p50', value: percentile(childCpu, 0.5), unit: 'ms', target: '(was 2.8-3.4 ms at load 14-16 before the bigger warm-up; 9.6-10.8 ms at load 3-8 before the ready spare; 16-24 ms before that)' },
      { group: 'density', name: 'RSS of a forked sandbox idle (after echo; process tree)', value: forked.rssKiB / 1024, unit: 'MiB', target: '(its child was a ready spare, which warmed the image loading)' },
      { group: 'density', name: 'Pss of the same', value: forked.pssKiB / 1024, unit: 'MiB' },
    ];
  } finally {
    await Promise.all([sandbox, ...forks].map((s) => s.destroy()));
  }
}

/** The memory of one more fork of `sandbox`, idle after a command (its tree: the child that ran it). */
async function forkMemory(sandbox: Sandbox, forks: Sandbox[]): Promise<TreeMemory> {
  await untilChildrenIdle(10_000);
  const before = kernelCpu();
  const copy = await sandbox.fork();
  forks.push(copy);
  await copy.run('echo idle');
  let busiest = 0;
  let most = -1;
  for (const [pid, ns] of kernelCpu()) {
    const used = ns - (before.get(pid) ?? ns);
    if (used > most) [busiest, most] = [pid, used];
  }
  await pause(SETTLE_MS);
  const tree = sandboxTrees().find((candidate) => treePids(candidate.root).includes(busiest));
  if (tree === undefined) throw new Error('found no process tree for the fork');
  return tree;
}

const ECHO_PY = 'import sys; sys.stdout.write(sys.stdin.read())';

function hostMs(script: string, runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    spawnSync('/bin/sh', ['-c', script]);
    samples.push(performance.now() - started);
  }
  return percentile(samples, 0.5);
}

async function pythonBackToBack(): Promise<BenchRow[]> {
  await pythonSnapshotReady(await kernelBundlePath());
  const sandbox = await Sandbox.create({});
  try {
    await sandbox.run(['python3', '-c', 'pass'], { timeoutMs: 120_000 });
    const single: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const result = await sandbox.run(['python3', '-c', 'pass'], { timeoutMs: 120_000 });
      single.push(performance.now() - started);
      if (result.exitCode !== 0) throw new Error(`python3 -c pass: exit ${result.exitCode}: ${result.stderr}`);
    }
    const pipeline = `echo hi | python3 -c '${ECHO_PY}' | python3 -c '${ECHO_PY}' | python3 -c '${ECHO_PY}'`;
    const piped: number[] = [];
    for (let i = 0; i < 8; i++) {
      const started = performance.now();
      const result = await sandbox.run(pipeline, { timeoutMs: 120_000 });
      piped.push(performance.now() - started);
      if (result.stdout !== 'hi\n') throw new Error(`the 3-python pipeline printed ${JSON.stringify(result.stdout)}: ${result.stderr}`);
    }
    return [
      { group: 'density', name: 'python3 -c pass back to back in one sandbox, p50', value: percentile(single, 0.5), unit: 'ms', reference: hostMs('python3 -c pass', 10), referenceLabel: 'host CPython', target: '≤ 50 ms (was 244 ms)' },
      { group: 'density', name: 'a 3-python pipeline (echo hi into python3, python3, python3), p50 (of 8)', value: percentile(piped, 0.5), unit: 'ms', reference: hostMs(pipeline, 5), referenceLabel: 'host CPython', target: '≤ 150 ms' },
    ];
  } finally {
    await sandbox.destroy();
  }
}

/** What one spawn loop measured (ms, and counts), in the process that ran it. */
interface SpawnFigures {
  p50: number;
  p99: number;
  firstP99: number;
  youngP50: number;
  youngP99: number;
  slowest: number;
  duringGc: number;
  scavenges: number;
  /** How long a scavenge of spawns 3,001-6,000 took, p50 and the longest (ms). */
  scavengeP50: number;
  scavengeMax: number;
  majors: number;
}

/**
 * As the kernel group measures it (an in-process kernel, the probe tool), so the figures
 * compare; and how many of the slowest 1% overlapped a garbage collection of this process.
 * Spawns 1-3,000 (a young kernel: V8 still optimizes the spawn path's JavaScript, with
 * `--trace-opt` ~150 functions there under V8's default tier-up), 501-3,500 (the young
 * stretch as measured before) and 3,001-6,000 (the steady state).
 */
async function spawnFigures(): Promise<SpawnFigures> {
  const collections: Array<{ start: number; end: number; minor: boolean }> = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // detail.kind 1 is a scavenge (NODE_PERFORMANCE_GC_MINOR); the rest are major or incremental.
      const kind = ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail)?.kind;
      collections.push({ start: entry.startTime, end: entry.startTime + entry.duration, minor: kind === 1 });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const kernel = createTestKernel();
  const runs: Array<{ start: number; end: number }> = [];
  for (let i = 0; i < 6000; i++) {
    const start = performance.now();
    await kernel.run(['probe', 'exit', '0']);
    runs.push({ start, end: performance.now() });
  }
  // GC entries are delivered asynchronously.
  await pause(100);
  observer.disconnect();
  const steady = runs.slice(3000);
  const durations = (list: typeof runs): number[] => list.map((run) => run.end - run.start);
  const p99 = percentile(durations(steady), 0.99);
  const slowest = steady.filter((run) => run.end - run.start >= p99);
  const measuredFrom = steady[0]?.start ?? 0;
  // What allocation per spawn costs: how often the young generation fills (the child's
  // semi-spaces, as in a sandbox child).
  const measured = collections.filter((gc) => gc.start >= measuredFrom);
  const perThousand = (count: number): number => (count * 1000) / steady.length;
  return {
    p50: percentile(durations(steady), 0.5),
    p99,
    firstP99: percentile(durations(runs.slice(0, 3000)), 0.99),
    youngP50: percentile(durations(runs.slice(500, 3500)), 0.5),
    youngP99: percentile(durations(runs.slice(500, 3500)), 0.99),
    slowest: slowest.length,
    duringGc: slowest.filter((run) => collections.some((gc) => gc.start < run.end && gc.end > run.start)).length,
    scavenges: perThousand(measured.filter((gc) => gc.minor).length),
    scavengeP50: percentile(measured.filter((gc) => gc.minor).map((gc) => gc.end - gc.start), 0.5),
    scavengeMax: Math.max(0, ...measured.filter((gc) => gc.minor).map((gc) => gc.end - gc.start)),
    majors: perThousand(measured.filter((gc) => !gc.minor).length),
  };
}

/** spawnFigures() in a fresh Node process started with `flags` (a sandbox child's V8 flags, or fewer). */
function spawnFiguresIn(flags: readonly string[]): SpawnFigures {
  const child = spawnSync(process.execPath, [...flags, '--import', 'tsx', fileURLToPath(import.meta.url)], { env: { ...process.env, DENSITY_SPAWN_LOOP: '1' }, encoding: 'utf8', maxBuffer: 1 << 20 });
  const last = child.stdout.trim().split('\n').pop() ?? '';
  if (child.status !== 0 || !last.startsWith('{')) throw new Error(`the spawn loop's process ended with ${child.status ?? child.signal}: ${child.stderr.slice(-500)}`);
  return JSON.parse(last) as SpawnFigures;
}

/**
 * The spawn loop in a fresh process with the sandbox child's V8 flags (child-process.ts), as
 * a child runs its kernel, next to the same loop with V8's default tier-up (only the child's
 * semi-space flag) in another fresh process of the same run.
 */
async function spawnLatency(): Promise<BenchRow[]> {
  const defaults = CHILD_V8_FLAGS.filter((flag) => flag.startsWith('--max-semi-space-size'));
  const reference = spawnFiguresIn(defaults);
  const ours = spawnFiguresIn(CHILD_V8_FLAGS);
  const referenceLabel = "V8's default tier-up";
  const row = (name: string, pick: (figures: SpawnFigures) => number, unit: string, target?: string): BenchRow => ({ group: 'density', name, value: pick(ours), unit, reference: pick(reference), referenceLabel, ...(target === undefined ? {} : { target }) });
  return [
    row('spawn→exit of a trivial tool, p50 (spawns 3,001-6,000)', (f) => f.p50, 'ms', '(was 0.227 ms)'),
    row('spawn→exit of a trivial tool, p99 (spawns 3,001-6,000)', (f) => f.p99, 'ms', '≤ 0.5 ms (was 4.8 ms)'),
    row("spawn→exit, a young kernel: p99 of spawns 1-3,000 (from the kernel's first)", (f) => f.firstP99, 'ms', '≤ 0.5 ms (was 1.4-2.9 ms quiet, with V8 on four threads)'),
    row('spawn→exit, a young kernel (spawns 501-3,500, V8 still optimizing), p50', (f) => f.youngP50, 'ms'),
    row('spawn→exit, a young kernel (spawns 501-3,500), p99', (f) => f.youngP99, 'ms', '≤ 0.5 ms (was 0.52-1.42 ms quiet)'),
    row(`spawn→exit: the slowest 1% of spawns 3,001-6,000 that overlapped a GC (of ${ours.slowest})`, (f) => f.duringGc, 'runs'),
    row('spawn→exit: scavenges per 1,000 spawns', (f) => f.scavenges, 'GCs'),
    // With 1 MiB semi-spaces a scavenge came every ~35 spawns, more often than the 30 runs
    // that make the p99, so a spawn met one; with the child's 8 MiB, every ~300.
    row('spawn→exit: a scavenge of those spawns, p50', (f) => f.scavengeP50, 'ms'),
    row('spawn→exit: the longest scavenge of those spawns', (f) => f.scavengeMax, 'ms'),
    row('spawn→exit: major or incremental GCs per 1,000 spawns', (f) => f.majors, 'GCs'),
  ];
}

export async function run(): Promise<BenchRow[]> {
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`bench: density: load average ${load} on ${(await import('node:os')).availableParallelism()} cores; timings are upper bounds on a loaded machine`);
  // The first sandbox builds the kernel bundle and Python's snapshot if they are stale.
  await (await Sandbox.create({})).destroy();
  const only = process.env.DENSITY_PARTS?.split(',');
  const parts: Array<[string, () => Promise<BenchRow[]>]> = [
    ['memory1', () => memoryAt(1)],
    ['memory10', () => memoryAt(10)],
    ['memory100', () => memoryAt(100)],
    ['used', memoryAfterWork],
    ['fork', forkTime],
    ['python', pythonBackToBack],
    ['spawn', spawnLatency],
    // The browser's cost per tab (bench/browser-tab.ts; needs `npm run build`).
    ['tab', tabMemory],
  ];
  const rows: BenchRow[] = [];
  for (const [name, part] of parts) {
    if (only !== undefined && !only.includes(name)) continue;
    rows.push(...(await part()));
  }
  return rows;
}

// The spawn loop's own process (spawnFiguresIn): its figures as the last line.
if (process.env.DENSITY_SPAWN_LOOP === '1') console.log(JSON.stringify(await spawnFigures()));
