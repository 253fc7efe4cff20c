// The Node sandbox child's side of Python (ARCHITECTURE.md §2, mode 1): `python3` and
// `python` as external programs whose interpreter runs in a worker_thread. Pyodide's wasm
// is read and compiled here once per child, on the first use, and handed to each worker
// compiled; the worker gets no path it could read by itself except Pyodide's script.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PythonProgram, type PythonWorkerFactory, type PythonWorkerHandle } from '../src/kernel/python/python-program.js';
import type { ExternalProgram } from '../src/kernel/proc/module-registry.js';

export interface NodePythonWorkerData {
  channel: SharedArrayBuffer;
  interrupt: SharedArrayBuffer;
  module: WebAssembly.Module;
  stdlib: Uint8Array;
  snapshot?: Uint8Array;
  pyodideScript: string;
  makeSnapshot: boolean;
}

interface Assets {
  module: WebAssembly.Module;
  stdlib: Uint8Array;
  snapshot?: Uint8Array;
}

export interface NodePythonOptions {
  /** A memory snapshot file made by python-snapshot-builder (read on first use). */
  snapshotFile?: string;
  /** Start workers that make a snapshot instead of running a process. */
  makeSnapshot?: boolean;
}

/** The factory that starts Python workers from `pyodideDir` with `workerScript`. */
export function nodePythonWorkerFactory(pyodideDir: string, workerScript: URL, options: NodePythonOptions = {}): PythonWorkerFactory {
  let assets: Promise<Assets> | undefined;
  const load = (): Promise<Assets> => {
    assets ??= (async () => {
      const bytes = readFileSync(join(pyodideDir, 'pyodide.asm.wasm'));
      const stdlib = new Uint8Array(readFileSync(join(pyodideDir, 'python_stdlib.zip')));
      let snapshot: Uint8Array | undefined;
      try {
        snapshot = options.snapshotFile === undefined ? undefined : new Uint8Array(readFileSync(options.snapshotFile));
      } catch {
        // No snapshot: a cold start, slower but the same interpreter.
      }
      return { module: await WebAssembly.compile(bytes), stdlib, snapshot };
    })();
    return assets;
  };
  return (init): PythonWorkerHandle => {
    let worker: Worker | undefined;
    let terminated = false;
    let fail: (reason: string) => void = () => undefined;
    const failed = new Promise<string>((resolve) => {
      fail = resolve;
    });
    load().then(
      ({ module, stdlib, snapshot }) => {
        if (terminated) return;
        const data: NodePythonWorkerData = {
          channel: init.channel, interrupt: init.interrupt, module, stdlib, snapshot,
          pyodideScript: pathToFileURL(join(pyodideDir, 'pyodide.asm.mjs')).href, makeSnapshot: options.makeSnapshot === true,
        };
        worker = new Worker(workerScript, { workerData: data, stdout: true, stderr: true, env: {} });
        worker.on('error', (error) => fail(error instanceof Error ? error.message : String(error)));
        worker.on('exit', (code) => fail(`the python worker ended (exit ${code})`));
      },
      (error: unknown) => fail(`pyodide could not be loaded: ${error instanceof Error ? error.message : String(error)}`),
    );
    return {
      failed,
      terminate(): void {
        terminated = true;
        void worker?.terminate();
      },
    };
  };
}

/** `python3` and `python` for KernelService's externals hook. */
export function nodePythonPrograms(pyodideDir: string | undefined, workerScript: URL, snapshotFile: string | undefined): Array<{ tools: string[]; program: ExternalProgram }> {
  if (pyodideDir === undefined) return [];
  // pip and pip3 are the interpreter too: they refuse with a message naming why (no package source).
  return [{ tools: ['python3', 'python', 'pip', 'pip3'], program: new PythonProgram(nodePythonWorkerFactory(pyodideDir, workerScript, { snapshotFile })) }];
}
