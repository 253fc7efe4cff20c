// The directory of one sandbox run, the same for every backend:
//   <runsDir>/<runId>/run.json            the SandboxRun
//   <runsDir>/<runId>/logs/NN-<phase>.stdout|.stderr
//   <runsDir>/<runId>/trace.jsonl         normalized trace (TraceEntry per line), when enabled
//   <runsDir>/<runId>/out/<guest path>    copy-out, after CopyOutWriter's checks

import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { SandboxRun, TraceEntry } from './contract.js';

export interface RunDir {
  runId: string;
  dir: string;
  logsDir: string;
  copyOutRoot: string;
  tracePath: string;
}

/** Where gate data lives: $AIRLOCK_GATES_DIR, else ~/.local/share/airlock/gates. */
export function defaultGatesDir(): string {
  return process.env.AIRLOCK_GATES_DIR ?? join(homedir(), '.local/share/airlock/gates');
}

export function createRunDir(runsDir: string): RunDir {
  const runId = uuidv7();
  const dir = join(runsDir, runId);
  const logsDir = join(dir, 'logs');
  mkdirSync(logsDir, { recursive: true });
  return { runId, dir, logsDir, copyOutRoot: join(dir, 'out'), tracePath: join(dir, 'trace.jsonl') };
}

export function phaseLogPaths(logsDir: string, index: number, name: string): { stdoutPath: string; stderrPath: string } {
  const stem = `${String(index + 1).padStart(2, '0')}-${name}`;
  return { stdoutPath: join(logsDir, `${stem}.stdout`), stderrPath: join(logsDir, `${stem}.stderr`) };
}

/** The last `cap` bytes of `data` (reports end at the bottom of a log). */
export function logTail(data: Uint8Array, cap: number): Uint8Array {
  return data.length <= cap ? data : data.subarray(data.length - cap);
}

export function writeTrace(path: string, entries: TraceEntry[]): void {
  writeFileSync(path, entries.map((entry) => JSON.stringify(entry)).join('\n') + (entries.length > 0 ? '\n' : ''));
}

export function writeRunRecord(dir: string, run: SandboxRun): void {
  writeFileSync(join(dir, 'run.json'), JSON.stringify(run, null, 2) + '\n');
}
