// A sandbox run as a worker hands it back: one tar of run.json (the SandboxRun with paths
// relative to the run's directory), logs/, trace.jsonl and out/ (the copy-out). The server
// unpacks it as hostile input into its own run directory and rebuilds the SandboxRun with
// its own paths; run.json is checked field by field, so a worker cannot point the server at
// any file outside that directory.

import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import Ajv from 'ajv';
import type { BackendName, SandboxRun, SandboxSpec } from '../backends/contract.js';
import { writeRunRecord } from '../backends/run-dir.js';
import { GATE_LIMITS } from '../../src/protocol/limits.js';
import { ArtifactError, packFiles, unpackTar, type PackedArtifact } from './artifacts.js';
import { QUEUE_LIMITS } from './protocol.js';

/** run.json: the SandboxRun's own values as they are, and its paths relative to the run's directory. */
type WireRun = Pick<SandboxRun, 'runId' | 'startedAt' | 'endedAt' | 'exitCode' | 'durationMs' | 'vmSeconds' | 'timedOut' | 'killedByOom' | 'bytesIn' | 'bytesOut' | 'warmStart' | 'copyOutRefusals'> & {
  specHash: string;
  phases: Array<{ name: string; exitCode: number; durationMs: number; stdout: string; stderr: string }>;
  trace: boolean;
};

const LOG_NAME = '^logs/[0-9]{2}-[a-z0-9][a-z0-9-]{0,31}\\.(stdout|stderr)$';
const number = { type: 'number', minimum: 0 } as const;
const WIRE_SCHEMA = {
  type: 'object', additionalProperties: false,
  required: ['runId', 'specHash', 'startedAt', 'endedAt', 'exitCode', 'durationMs', 'vmSeconds', 'phases', 'trace', 'timedOut', 'killedByOom', 'bytesIn', 'bytesOut', 'warmStart', 'copyOutRefusals'],
  properties: {
    runId: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' },
    specHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    startedAt: { type: 'string', maxLength: 64 }, endedAt: { type: 'string', maxLength: 64 },
    exitCode: { type: 'integer', minimum: 0, maximum: 255 }, durationMs: number, vmSeconds: number,
    phases: {
      type: 'array', maxItems: GATE_LIMITS.maxPhases,
      items: { type: 'object', additionalProperties: false, required: ['name', 'exitCode', 'durationMs', 'stdout', 'stderr'], properties: { name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,31}$' }, exitCode: { type: 'integer', minimum: 0, maximum: 255 }, durationMs: number, stdout: { type: 'string', pattern: LOG_NAME }, stderr: { type: 'string', pattern: LOG_NAME } } },
    },
    trace: { type: 'boolean' }, timedOut: { type: 'boolean' }, killedByOom: { type: 'boolean' },
    bytesIn: number, bytesOut: number, warmStart: { type: 'boolean' },
    copyOutRefusals: { type: 'array', maxItems: 200, items: { type: 'string', maxLength: 2048 } },
  },
} as const;
const validateWire = new Ajv({ allErrors: false, strict: true }).compile(WIRE_SCHEMA);

/** Packs a run (on the worker) into `tarPath`. */
export async function packRunResult(run: SandboxRun, tarPath: string): Promise<PackedArtifact> {
  const runDir = join(run.logsDir, '..');
  const wire: WireRun = {
    runId: run.runId, specHash: run.spec.specHash, startedAt: run.startedAt, endedAt: run.endedAt, exitCode: run.exitCode,
    durationMs: run.durationMs, vmSeconds: run.vmSeconds, trace: run.tracePath !== null,
    phases: run.phases.map((phase) => ({ name: phase.name, exitCode: phase.exitCode, durationMs: phase.durationMs, stdout: `logs/${basename(phase.stdoutPath)}`, stderr: `logs/${basename(phase.stderrPath)}` })),
    timedOut: run.timedOut, killedByOom: run.killedByOom, bytesIn: run.bytesIn, bytesOut: run.bytesOut, warmStart: run.warmStart, copyOutRefusals: run.copyOutRefusals.slice(0, 200),
  };
  const files: Array<{ name: string; hostPath: string }> = [];
  for (const phase of run.phases) for (const path of [phase.stdoutPath, phase.stderrPath]) if (existsSync(path)) files.push({ name: `logs/${basename(path)}`, hostPath: path });
  if (run.tracePath !== null && existsSync(run.tracePath)) files.push({ name: 'trace.jsonl', hostPath: run.tracePath });
  if (existsSync(run.copyOutRoot)) files.push(...walkTree(run.copyOutRoot, 'out'));
  const runJson = join(runDir, 'wire-run.json');
  writeFileSync(runJson, JSON.stringify(wire));
  return packFiles([{ name: 'run.json', hostPath: runJson }, ...files], tarPath);
}

function walkTree(root: string, prefix: string): Array<{ name: string; hostPath: string }> {
  const out: Array<{ name: string; hostPath: string }> = [{ name: prefix, hostPath: root }];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...walkTree(path, `${prefix}/${entry.name}`));
    else out.push({ name: `${prefix}/${entry.name}`, hostPath: path });
  }
  return out;
}

/**
 * Unpacks a received result into `<runsDir>/<runId>/` and returns the SandboxRun with the
 * server's paths and the server's spec (the worker's specHash must be the spec's).
 */
export async function readRunResult(tarPath: string, runsDir: string, runId: string, spec: SandboxSpec, backend: BackendName): Promise<SandboxRun> {
  const dir = join(runsDir, runId);
  if (existsSync(dir)) throw new ArtifactError(`result: a run ${runId} is already stored`);
  const refusals = await unpackTar(tarPath, dir, { caps: { bytes: QUEUE_LIMITS.resultBytes, entries: QUEUE_LIMITS.resultEntries, pathBytes: GATE_LIMITS.copyOutPathBytes }, symlinks: false, modes: false });
  let wire: unknown;
  try {
    wire = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
  } catch (error) {
    throw new ArtifactError(`result: run.json is missing or not JSON: ${(error as Error).message}`);
  }
  if (!validateWire(wire)) throw new ArtifactError(`result: run.json${validateWire.errors?.[0]?.instancePath ?? ''} ${validateWire.errors?.[0]?.message ?? 'is invalid'}`);
  const run = wire as WireRun;
  if (run.runId !== runId) throw new ArtifactError(`result: run.json names run ${run.runId}, the upload run ${runId}`);
  if (run.specHash !== spec.specHash) throw new ArtifactError(`result: the worker ran spec ${run.specHash}, not ${spec.specHash}`);
  const result: SandboxRun = {
    runId, spec, backend, startedAt: run.startedAt, endedAt: run.endedAt, exitCode: run.exitCode,
    durationMs: run.durationMs, vmSeconds: run.vmSeconds, logsDir: join(dir, 'logs'),
    phases: run.phases.map((phase) => ({ name: phase.name, exitCode: phase.exitCode, durationMs: phase.durationMs, stdoutPath: join(dir, phase.stdout), stderrPath: join(dir, phase.stderr) })),
    tracePath: run.trace ? join(dir, 'trace.jsonl') : null, copyOutRoot: join(dir, 'out'),
    timedOut: run.timedOut, killedByOom: run.killedByOom, bytesIn: run.bytesIn, bytesOut: run.bytesOut, warmStart: run.warmStart,
    copyOutRefusals: [...run.copyOutRefusals, ...refusals.map((refusal) => `transfer: ${refusal}`)],
  };
  writeRunRecord(dir, result);
  return result;
}
