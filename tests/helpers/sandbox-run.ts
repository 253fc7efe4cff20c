// A finished sandbox run on disk, laid out as every backend leaves it (server/backends/run-dir.ts):
// one phase with its logs, copy-out files, a trace. For tests of what reads runs (signals,
// the gate runner) without starting a sandbox.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SandboxRun, TraceEntry } from '../../server/backends/contract.js';
import { createRunDir, phaseLogPaths, writeTrace } from '../../server/backends/run-dir.js';
import { parseSandboxSpec } from '../../server/backends/spec.js';

export interface RunOnDisk {
  phase?: { name: string; exitCode: number; stdout?: string; stderr?: string };
  /** Files under the copy-out root, by path relative to it. */
  copyOut?: Record<string, string>;
  trace?: TraceEntry[];
  /** Fields of the SandboxRun to set (timedOut, killedByOom, backend...). */
  fields?: Partial<SandboxRun>;
}

export function runOnDisk(runsDir: string, options: RunOnDisk = {}): SandboxRun {
  const phase = options.phase ?? { name: 'test', exitCode: options.fields?.exitCode ?? 0 };
  const dir = createRunDir(runsDir);
  const logs = phaseLogPaths(dir.logsDir, 0, phase.name);
  writeFileSync(logs.stdoutPath, phase.stdout ?? '');
  writeFileSync(logs.stderrPath, phase.stderr ?? '');
  for (const [path, text] of Object.entries(options.copyOut ?? {})) {
    mkdirSync(dirname(join(dir.copyOutRoot, path)), { recursive: true });
    writeFileSync(join(dir.copyOutRoot, path), text);
  }
  if (options.trace !== undefined) writeTrace(dir.tracePath, options.trace);
  const time = new Date().toISOString();
  return {
    runId: dir.runId, spec: parseSandboxSpec({ phases: [{ name: phase.name, argv: ['true'] }] }), backend: 'qemu', startedAt: time, endedAt: time,
    exitCode: phase.exitCode, durationMs: 5, vmSeconds: 1, phases: [{ name: phase.name, exitCode: phase.exitCode, durationMs: 5, ...logs }],
    logsDir: dir.logsDir, tracePath: options.trace === undefined ? null : dir.tracePath, copyOutRoot: dir.copyOutRoot, timedOut: false, killedByOom: false,
    bytesIn: 0, bytesOut: 0, warmStart: false, copyOutRefusals: [], ...options.fields,
  };
}
