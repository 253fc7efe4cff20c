// Issue 13's figures: appending to the audit chain (events/s, against plain JSONL appends
// without the chain), verifying it (lines/s), and what the file sink adds to run('echo hi')
// (against the same runs without a sink, interleaved in the same process).

import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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

async function appendThroughput(dir: string, count: number): Promise<{ chained: number; chainedCpu: number; plain: number; plainCpu: number; path: string }> {
  const path = join(dir, 'append.jsonl');
  const log = await ChainLog.open(path);
  let cpu = process.cpuUsage();
  let started = performance.now();
  for (let i = 0; i < count; i++) {
    log.append(sampleEvent(i));
    // Let the writer drain now and then, as a live sink's event loop would.
    if (i % 20_000 === 19_999) await log.flush();
  }
  await log.close();
  const chained = count / ((performance.now() - started) / 1000);
  const chainedCpu = count / cpuSeconds(cpu);
  // Reference: the same events as plain JSON lines, batched the same way, no chain.
  const plainFile = await open(join(dir, 'plain.jsonl'), 'a');
  cpu = process.cpuUsage();
  started = performance.now();
  let batch: string[] = [];
  for (let i = 0; i < count; i++) {
    batch.push(`${JSON.stringify(sampleEvent(i))}\n`);
    if (batch.length === 20_000) {
      await plainFile.write(batch.join(''));
      batch = [];
    }
  }
  await plainFile.write(batch.join(''));
  await plainFile.close();
  const plain = count / ((performance.now() - started) / 1000);
  const plainCpu = count / cpuSeconds(cpu);
  return { chained, chainedCpu, plain, plainCpu, path };
}

/**
 * The file sink's cost on a run: one sandbox whose events go to the sink on every other run
 * and nowhere on the others (runs in different child processes differ by more than the
 * sink costs on a loaded machine, so the comparison stays within one).
 */
async function sinkOverhead(dir: string): Promise<{ withSink: number; without: number }> {
  const sink = await AuditFileSink.open(join(dir, 'runs.jsonl'));
  let sinkOn = false;
  const sandbox = await Sandbox.create({ onAuditEvent: (event) => (sinkOn ? sink.listener(event) : undefined) });
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 440; i++) {
    sinkOn = i % 2 === 1;
    const started = performance.now();
    await sandbox.run('echo hi');
    // Let the sink write (it writes after the run, as it would between runs).
    await new Promise((resolve) => setImmediate(resolve));
    if (i >= 40) (sinkOn ? b : a).push(performance.now() - started);
  }
  await sandbox.destroy();
  await sink.close();
  return { withSink: percentile(b, 0.5), without: percentile(a, 0.5) };
}

/** A refusal flood (100,000 refused creates in one run), with an audit listener and without. */
async function floodOverhead(): Promise<{ audited: number; plain: number; events: number }> {
  const wasmDir = fileURLToPath(new URL('../tests/wasm', import.meta.url));
  let events = 0;
  const times: Record<'audited' | 'plain', number> = { audited: 0, plain: 0 };
  for (const kind of ['plain', 'audited', 'plain', 'audited'] as const) {
    const sandbox = await Sandbox.create({ wasmDir, onAuditEvent: kind === 'audited' ? () => void events++ : undefined });
    const started = performance.now();
    const result = await sandbox.run(['probe', 'write-many', '100000', '/etc/flood'], { timeoutMs: 600_000 });
    times[kind] += performance.now() - started;
    if (result.stdout !== 'failed 100000\n') throw new Error(`the flood did not run: ${result.stdout}`);
    await sandbox.destroy();
  }
  return { audited: times.audited / 2, plain: times.plain / 2, events: events / 2 };
}

export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'airlock-audit-bench-'));
  try {
    const count = 200_000;
    const append = await appendThroughput(dir, count);
    const cpu = process.cpuUsage();
    const started = performance.now();
    const report = await verifyAuditLog(append.path);
    const verifySeconds = (performance.now() - started) / 1000;
    const verifyCpu = cpuSeconds(cpu);
    const schemaCpu = process.cpuUsage();
    const schemaStarted = performance.now();
    const schemaReport = await verifyAuditLog(append.path, { schema: true });
    const schemaSeconds = (performance.now() - schemaStarted) / 1000;
    const schemaCpuSeconds = cpuSeconds(schemaCpu);
    if (!schemaReport.ok) throw new Error(`the benchmark's own log does not verify: ${schemaReport.problem?.message}`);
    if (!report.ok) throw new Error(`the benchmark's own log does not verify: ${report.problem?.message}`);
    const overhead = await sinkOverhead(dir);
    const flood = await floodOverhead();
    return [
      { group: 'audit', name: `append with the chain on (${count} events), per CPU-second`, value: append.chainedCpu, unit: 'events/s', reference: append.plainCpu, referenceLabel: 'plain JSONL, no chain', higherIsBetter: true, target: '≥ 50,000 events/s' },
      { group: 'audit', name: 'append with the chain on, wall clock', value: append.chained, unit: 'events/s', reference: append.plain, referenceLabel: 'plain JSONL, no chain', higherIsBetter: true },
      { group: 'audit', name: 'verify (chain, checkpoints), per CPU-second', value: report.lines / verifyCpu, unit: 'lines/s', target: '≥ 200,000 lines/s' },
      { group: 'audit', name: 'verify, wall clock', value: report.lines / verifySeconds, unit: 'lines/s' },
      { group: 'audit', name: 'verify --schema (every event checked too), per CPU-second', value: schemaReport.lines / schemaCpuSeconds, unit: 'lines/s' },
      { group: 'audit', name: 'verify --schema, wall clock', value: schemaReport.lines / schemaSeconds, unit: 'lines/s' },
      { group: 'audit', name: "run('echo hi') with the file sink, p50", value: overhead.withSink, unit: 'ms', reference: overhead.without, referenceLabel: 'no sink: every other run of the same sandbox', target: '≤ 1.05× (5 %)' },
      { group: 'audit', name: `100,000 refused writes in one run, audited (${Math.round(flood.events)} events)`, value: flood.audited, unit: 'ms', reference: flood.plain, referenceLabel: 'no audit listener', target: '≤ 1.05× (5 %)' },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
