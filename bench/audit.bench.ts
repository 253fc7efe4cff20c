// Issue 13's figures: appending to the audit chain (events/s, against plain JSONL appends
// without the chain), verifying it (lines/s), and what the file sink adds to run('echo hi')
// (against the same runs without a sink, interleaved in the same process). Throughputs are
// the median of 3 rounds, next to the load average the machine had when the group started.

import { mkdtemp, open, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AuditEvent } from '../src/protocol/audit/schema.js';
import { verifyAuditLog } from '../src/host/audit/audit-log.js';
import { ChainLog } from '../src/host/audit/chain-log.js';
import { AuditFileSink } from '../src/host/audit/file-sink.js';
import { Sandbox } from '../src/host/node/index.js';
import { percentile, type BenchRow } from './report.js';

/**
 * Seconds of this process's CPU time since `from` (user + system). Throughputs are given per
 * CPU-second as well as per wall-clock second: on a machine shared with other work the
 * wall clock measures the other work too.
 */
function cpuSeconds(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1e6;
}

/** A typical event: what a run's end looks like in the log. */
function sampleEvent(seq: number): AuditEvent {
  return { v: 1, type: 'run.ended', sessionId: 'sb-0123456789abcdef', seq, time: new Date().toISOString(), source: 'host', runId: seq, exitCode: 0, durationMs: 1.25, errorClass: null, outputTruncated: false };
}

/** Rounds of each throughput measured; the median is reported (a shared machine's bursts of other work land in one round, not all). */
const ROUNDS = 3;

function median(values: number[]): number {
  return percentile(values, 0.5);
}

interface AppendFigures {
  chained: number;
  chainedCpu: number;
  plain: number;
  plainCpu: number;
  path: string;
}

/** Lets the event loop run (I/O callbacks, the log's timers), as a live sink's would between events. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * `count` events appended to a fresh chain, timed until all are on disk (close() waits for
 * the writes). Appending never waits for the disk (chain-log.ts), so neither does the loop:
 * it starts a write every 20,000 events and yields to the event loop every 1,000, as a live
 * sink's producer would; the writes go on meanwhile. The reference writes the same events
 * as plain JSON lines the same way: the same batches, written one at a time in the background.
 */
async function appendThroughput(dir: string, count: number, name: string): Promise<AppendFigures> {
  const path = join(dir, `append-${name}.jsonl`);
  const log = await ChainLog.open(path);
  let cpu = process.cpuUsage();
  let started = performance.now();
  for (let i = 0; i < count; i++) {
    log.append(sampleEvent(i));
    // A failed write fails close() below.
    if (i % 20_000 === 19_999) log.flush().catch(() => undefined);
    if (i % 1000 === 999) await yieldToEventLoop();
  }
  await log.close();
  const chained = count / ((performance.now() - started) / 1000);
  const chainedCpu = count / cpuSeconds(cpu);
  const plainFile = await open(join(dir, `plain-${name}.jsonl`), 'a');
  cpu = process.cpuUsage();
  started = performance.now();
  let batch: string[] = [];
  let writing = Promise.resolve();
  const writeBatch = (): void => {
    const text = batch.join('');
    batch = [];
    writing = writing.then(async () => void (await plainFile.write(text)));
  };
  for (let i = 0; i < count; i++) {
    batch.push(`${JSON.stringify(sampleEvent(i))}\n`);
    if (batch.length === 20_000) writeBatch();
    if (i % 1000 === 999) await yieldToEventLoop();
  }
  writeBatch();
  await writing;
  await plainFile.close();
  const plain = count / ((performance.now() - started) / 1000);
  const plainCpu = count / cpuSeconds(cpu);
  return { chained, chainedCpu, plain, plainCpu, path };
}

/**
 * The file sink's cost on a run: one sandbox whose events go to the sink on one run of each
 * pair and nowhere on the other (runs in different child processes differ by more than the
 * sink costs on a loaded machine, so the comparison stays within one). The pairs alternate
 * which run comes first, and the ratio within each pair is taken: on a machine whose load
 * changes from second to second, the median of those ratios is steadier than a ratio of
 * medians.
 */
async function sinkOverhead(dir: string): Promise<{ withSink: number; without: number; pairedRatio: number }> {
  const sink = await AuditFileSink.open(join(dir, 'runs.jsonl'));
  let sinkOn = false;
  const sandbox = await Sandbox.create({ onAuditEvent: (event) => (sinkOn ? sink.listener(event) : undefined) });
  const timeRun = async (on: boolean): Promise<number> => {
    sinkOn = on;
    const started = performance.now();
    await sandbox.run('echo hi');
    // Let the sink write (it writes after the run, as it would between runs).
    await new Promise((resolve) => setImmediate(resolve));
    return performance.now() - started;
  };
  const a: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  for (let pair = 0; pair < 420; pair++) {
    const first = pair % 2 === 0;
    const one = await timeRun(first);
    const other = await timeRun(!first);
    // The first pairs warm up the worker and the JIT.
    if (pair < 20) continue;
    const [on, off] = first ? [one, other] : [other, one];
    b.push(on);
    a.push(off);
    ratios.push(on / off);
  }
  await sandbox.destroy();
  await sink.close();
  return { withSink: median(b), without: median(a), pairedRatio: median(ratios) };
}

/** Refused creates per flood run. */
const FLOOD_WRITES = 50_000;
/** Pairs of flood runs (one with a listener, one without), alternating which goes first. */
const FLOOD_PAIRS = 4;

/**
 * A refusal flood (FLOOD_WRITES refused creates in one run), with an audit listener and
 * without, each in a fresh sandbox: the median of the paired ratios, and the median times.
 */
async function floodOverhead(): Promise<{ audited: number; plain: number; pairedRatio: number; events: number }> {
  const wasmDir = fileURLToPath(new URL('../tests/wasm', import.meta.url));
  let events = 0;
  const flood = async (audited: boolean): Promise<number> => {
    const sandbox = await Sandbox.create({ wasmDir, onAuditEvent: audited ? () => void events++ : undefined });
    const started = performance.now();
    const result = await sandbox.run(['probe', 'write-many', String(FLOOD_WRITES), '/etc/flood'], { timeoutMs: 600_000 });
    const elapsed = performance.now() - started;
    if (result.stdout !== `failed ${FLOOD_WRITES}\n`) throw new Error(`the flood did not run: ${result.stdout}`);
    await sandbox.destroy();
    return elapsed;
  };
  const audited: number[] = [];
  const plain: number[] = [];
  const ratios: number[] = [];
  for (let pair = 0; pair < FLOOD_PAIRS; pair++) {
    const first = pair % 2 === 0;
    const one = await flood(first);
    const other = await flood(!first);
    const [on, off] = first ? [one, other] : [other, one];
    audited.push(on);
    plain.push(off);
    ratios.push(on / off);
  }
  return { audited: median(audited), plain: median(plain), pairedRatio: median(ratios), events: events / FLOOD_PAIRS };
}

/** Lines verified per wall-clock second and per CPU-second, median of ROUNDS, with or without the schema check. */
async function verifyThroughput(path: string, schema: boolean): Promise<{ wall: number; cpu: number }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const used = process.cpuUsage();
    const started = performance.now();
    const report = await verifyAuditLog(path, { schema });
    if (!report.ok) throw new Error(`the benchmark's own log does not verify: ${report.problem?.message}`);
    wall.push(report.lines / ((performance.now() - started) / 1000));
    cpu.push(report.lines / cpuSeconds(used));
  }
  return { wall: median(wall), cpu: median(cpu) };
}

export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'airlock-audit-bench-'));
  try {
    const count = 200_000;
    const load = loadavg()[0] as number;
    // A round to warm up (the JIT), not counted.
    await appendThroughput(dir, count / 10, 'warm-up');
    const rounds: AppendFigures[] = [];
    for (let round = 0; round < ROUNDS; round++) rounds.push(await appendThroughput(dir, count, String(round)));
    const append = {
      chained: median(rounds.map((r) => r.chained)),
      chainedCpu: median(rounds.map((r) => r.chainedCpu)),
      plain: median(rounds.map((r) => r.plain)),
      plainCpu: median(rounds.map((r) => r.plainCpu)),
    };
    const verify = await verifyThroughput((rounds[0] as AppendFigures).path, false);
    const schema = await verifyThroughput((rounds[0] as AppendFigures).path, true);
    const overhead = await sinkOverhead(dir);
    const flood = await floodOverhead();
    const median3 = `median of ${ROUNDS}`;
    return [
      { group: 'audit', name: `load average (1 min) when the group started, on ${availableParallelism()} cores`, value: load, unit: '' },
      { group: 'audit', name: `append with the chain on (${count} events, ${median3}), per CPU-second`, value: append.chainedCpu, unit: 'events/s', reference: append.plainCpu, referenceLabel: 'plain JSONL, no chain', higherIsBetter: true, target: '≥ 50,000 events/s' },
      { group: 'audit', name: 'append with the chain on, wall clock', value: append.chained, unit: 'events/s', reference: append.plain, referenceLabel: 'plain JSONL, no chain', higherIsBetter: true, target: '≥ 50,000 events/s' },
      { group: 'audit', name: `verify (chain, checkpoints; ${median3}), per CPU-second`, value: verify.cpu, unit: 'lines/s', target: '≥ 200,000 lines/s' },
      { group: 'audit', name: 'verify, wall clock', value: verify.wall, unit: 'lines/s', target: '≥ 200,000 lines/s' },
      { group: 'audit', name: 'verify --schema (every event checked too), per CPU-second', value: schema.cpu, unit: 'lines/s' },
      { group: 'audit', name: 'verify --schema, wall clock', value: schema.wall, unit: 'lines/s' },
      { group: 'audit', name: "run('echo hi') with the file sink, p50", value: overhead.withSink, unit: 'ms', reference: overhead.without, referenceLabel: 'no sink: the other run of each pair, same sandbox' },
      { group: 'audit', name: "run('echo hi') with the file sink against without, median of 400 paired ratios", value: overhead.pairedRatio, unit: '×', target: '≤ 1.05× (5 %)' },
      { group: 'audit', name: `${FLOOD_WRITES.toLocaleString('en')} refused writes in one run, audited (${Math.round(flood.events)} events), median`, value: flood.audited, unit: 'ms', reference: flood.plain, referenceLabel: 'no audit listener' },
      { group: 'audit', name: `the flood audited against not, median of ${FLOOD_PAIRS} paired ratios`, value: flood.pairedRatio, unit: '×', target: '≤ 1.05× (5 %)' },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
