// Where each sandbox run of a gate run executed: the queue writes executed-on.json beside a
// run a worker did (remote-runs.ts); a run without one ran in-process on this machine.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PLACEMENT_FILE, type Placement } from './remote-runs.js';

/** sandboxRunId → placement, for the runs of the gate run directory `runDir` that ran on a worker. */
export function placementsOf(runDir: string): Record<string, Placement> {
  const sandboxDir = join(runDir, 'sandbox');
  const placements: Record<string, Placement> = {};
  if (!existsSync(sandboxDir)) return placements;
  for (const runId of readdirSync(sandboxDir)) {
    const file = join(sandboxDir, runId, PLACEMENT_FILE);
    if (!existsSync(file)) continue;
    try {
      placements[runId] = JSON.parse(readFileSync(file, 'utf8')) as Placement;
    } catch {
      // an unreadable placement is shown as unknown, not as an error of the run
    }
  }
  return placements;
}
