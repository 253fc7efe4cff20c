// The Node sandbox child's side of Python (docs/architecture.md §2, mode 1): `python3` and
// `python` as external programs whose interpreter runs in a worker_thread. Pyodide's wasm
// is read and compiled here once per child, on the first use, and handed to each worker
// compiled; the worker gets no path it could read by itself except Pyodide's script.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PythonProgram, startWhenLoaded, type PythonWorkerFactory, type PythonWorkerHandle } from './python-program.js';
import { createInlinePythonProgram } from './inline-program.js';
import type { CreatePyodideModule } from './pyodide-boot.js';
import type { ExternalProgram } from '../sys/external-program.js';

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

/** Reads and compiles Pyodide's files (and the snapshot, if there is one). */
async function loadAssets(pyodideDir: string, snapshotFile: string | undefined): Promise<Assets> {
  const bytes = readFileSync(join(pyodideDir, 'pyodide.asm.wasm'));
  const stdlib = new Uint8Array(readFileSync(join(pyodideDir, 'python_stdlib.zip')));
  let snapshot: Uint8Array | undefined;
  try {
    snapshot = snapshotFile === undefined ? undefined : new Uint8Array(readFileSync(snapshotFile));
  } catch {
    // No snapshot: a cold start, slower but the same interpreter.
  }
  return { module: await WebAssembly.compile(bytes), stdlib, snapshot };
}

/** The factory that starts Python workers from `pyodideDir` with `workerScript`. */
export function nodePythonWorkerFactory(pyodideDir: string, workerScript: URL, options: NodePythonOptions = {}): PythonWorkerFactory {
  let assets: Promise<Assets> | undefined;
  const load = (): Promise<Assets> => {
    assets ??= loadAssets(pyodideDir, options.snapshotFile);
    return assets;
  };
  return (init): PythonWorkerHandle =>
    startWhenLoaded(
      load(),
      ({ module, stdlib, snapshot }, fail) => {
        const data: NodePythonWorkerData = {
          channel: init.channel, interrupt: init.interrupt, module, stdlib, snapshot,
          pyodideScript: pathToFileURL(join(pyodideDir, 'pyodide.asm.mjs')).href, makeSnapshot: options.makeSnapshot === true,
        };
        const worker = new Worker(workerScript, { workerData: data, stdout: true, stderr: true, env: {} });
        worker.on('error', (error) => fail(error instanceof Error ? error.message : String(error)));
        worker.on('exit', (code) => fail(`the python worker ended (exit ${code})`));
        return { terminate: () => void worker.terminate() };
      },
      (message) => `pyodide could not be loaded: ${message}`,
    );
}

/** `python3` and `python` for KernelService's externals hook. */
export function nodePythonPrograms(pyodideDir: string | undefined, workerScript: URL, snapshotFile: string | undefined): Array<{ tools: string[]; program: ExternalProgram }> {
  if (pyodideDir === undefined) return [];
  // pip and pip3 are the interpreter too: they refuse with a message naming why (no package source).
  return [{ tools: ['python3', 'python', 'pip', 'pip3'], program: new PythonProgram(nodePythonWorkerFactory(pyodideDir, workerScript, { snapshotFile })) }];
}

/**
 * `python3` inline on the kernel thread (mode 3), selected by the host for tests of the
 * mode pages without SharedArrayBuffer get. Pyodide's script is loaded into this (already
 * hardened) realm on first use; as in the Python worker, Emscripten must see a worker
 * realm, or with `process` gone it would take the d8 shell's paths.
 */
export function nodeInlinePythonPrograms(pyodideDir: string | undefined, snapshotFile: string | undefined): Array<{ tools: string[]; program: ExternalProgram }> {
  if (pyodideDir === undefined) return [];
  // Called once (the program keeps the factory), and again only after a failure.
  const load = async (): Promise<CreatePyodideModule> => {
    if (!('WorkerGlobalScope' in globalThis)) {
      Object.defineProperty(globalThis, 'WorkerGlobalScope', { value: class WorkerGlobalScope {}, configurable: false, writable: false });
    }
    const script = (await import(pathToFileURL(join(pyodideDir, 'pyodide.asm.mjs')).href)) as { default: CreatePyodideModule };
    return script.default;
  };
  const program = createInlinePythonProgram({
    load,
    assets: () => loadAssets(pyodideDir, snapshotFile),
  });
  return [{ tools: ['python3', 'python', 'pip', 'pip3'], program }];
}
