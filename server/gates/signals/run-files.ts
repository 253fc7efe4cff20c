// Reading a finished run's files for the signal collectors: a phase's logs, the files under
// the copy-out root. Bounded reads: a collector never loads more than it can use.

import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { PhaseResult, SandboxRun } from '../../backends/contract.js';

const READ_CAP = 4 * 1024 * 1024;

export function readCapped(path: string): string {
  if (!existsSync(path)) return '';
  const data = readFileSync(path);
  return data.subarray(0, READ_CAP).toString('utf8');
}

/** The phase a signal is about: the one named `name`, else the last that ran. */
export function phaseNamed(run: SandboxRun, names: string[]): PhaseResult | undefined {
  return run.phases.find((phase) => names.includes(phase.name)) ?? undefined;
}

/** Files under the copy-out root (regular files only), relative paths. */
export function copyOutFiles(run: SandboxRun, limit = 2000): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir) || out.length >= limit) return;
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) out.push(relative(run.copyOutRoot, path));
    }
  };
  walk(run.copyOutRoot);
  return out;
}

/** A path for evidence: relative to the run's directory (the parent of its logs). */
export function evidencePath(run: SandboxRun, path: string): string {
  return relative(join(run.logsDir, '..'), path);
}
