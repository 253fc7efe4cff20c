// Python's start-up files for Node hosts: where Pyodide is, and the memory snapshot that
// lets a sandbox start an interpreter in a fraction of a cold boot. The snapshot is made
// once per build (Pyodide version and Python worker code) by a separate process that runs
// no user code (workers/python-snapshot-builder.ts) and kept in a file cache; sandbox
// children get read access to it and nothing else. A sandbox never writes it, so one
// session's code cannot reach the next session's interpreter through it.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Pyodide's package directory (the pinned npm dependency), if it is installed. */
export function pyodideDirectory(): string | undefined {
  try {
    return dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
  } catch {
    return undefined;
  }
}

const building = new Map<string, Promise<string | undefined>>();

function cacheDirectory(): string {
  return join(tmpdir(), 'airlock-python-cache');
}

/**
 * The snapshot file for the Python worker beside `bundle`. When it is missing it is made
 * in the background and undefined is returned at once: sandboxes created meanwhile boot
 * Python cold, which is slower but never blocks a sandbox that may not use Python.
 */
export function pythonSnapshotFile(bundle: string): string | undefined {
  const pyodideDir = pyodideDirectory();
  const workerScript = join(dirname(bundle), 'python-worker.mjs');
  const builder = join(dirname(bundle), 'python-snapshot.mjs');
  if (pyodideDir === undefined || !existsSync(workerScript) || !existsSync(builder)) return undefined;
  const key = createHash('sha256')
    .update(readFileSync(join(pyodideDir, 'package.json')))
    .update(readFileSync(workerScript))
    .digest('hex')
    .slice(0, 32);
  const file = join(cacheDirectory(), `python-${key}.snapshot`);
  if (existsSync(file)) return file;
  if (!building.has(key)) building.set(key, build(file, pyodideDir, builder));
  return undefined;
}

/** Waits for a snapshot being made by pythonSnapshotFile (tests and benchmarks). */
export async function pythonSnapshotReady(bundle: string): Promise<string | undefined> {
  const file = pythonSnapshotFile(bundle);
  if (file !== undefined) return file;
  await Promise.all(building.values());
  return pythonSnapshotFile(bundle);
}

async function build(file: string, pyodideDir: string, builder: string): Promise<string | undefined> {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  const args = [
    '--disallow-code-generation-from-strings', '--experimental-permission', '--allow-worker', '--no-warnings',
    `--allow-fs-read=${dirname(builder)}`, `--allow-fs-read=${pyodideDir}`, `--allow-fs-read=${dir}`, `--allow-fs-write=${dir}`,
    builder, `--out=${file}`, `--pyodide-dir=${pyodideDir}`,
  ];
  const status = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], env: {} });
    // A host that is done may exit while the snapshot is still being made.
    child.unref();
    child.on('exit', (code) => resolve(code));
    child.on('error', () => resolve(null));
  });
  // Without a snapshot every interpreter boots cold: slower, the same behaviour.
  return status === 0 && existsSync(file) ? file : undefined;
}
