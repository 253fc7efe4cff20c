// A worker's scratch space: <root>/<workerId>/ holds one directory per job (the workspace
// it fetched, the sandbox run, the result tar), removed when the job ends. A worker killed
// with -9 cannot clean up, so every worker sweeps the directories of workers that are gone
// (owner.json names the host and pid) when it starts and on each heartbeat.

import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../../src/host/process-alive.js';

export const OWNER_FILE = 'owner.json';

export function defaultWorkRoot(): string {
  return join(tmpdir(), 'airlock-gate-worker');
}

/** Creates the worker's own directory and returns it. */
export function claimWorkDir(root: string, workerId: string): string {
  const dir = join(root, workerId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, OWNER_FILE), JSON.stringify({ workerId, host: hostname(), pid: process.pid }) + '\n');
  return dir;
}

/** Removes the directories of this host's workers that no longer run; returns what it removed. */
export function sweepOrphans(root: string, self: string): string[] {
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    if (name === self) continue;
    const dir = join(root, name);
    let owner: { host?: unknown; pid?: unknown };
    try {
      owner = JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')) as { host?: unknown; pid?: unknown };
    } catch {
      continue; // not a worker's directory, or one being created
    }
    if (owner.host !== hostname() || typeof owner.pid !== 'number' || processAlive(owner.pid)) continue;
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}
