// Entry point of a Python worker in Node: a worker_thread of the sandbox child, so it
// shares the child's permission model (no fs writes, no child processes, no addons) and
// --disallow-code-generation-from-strings. Its realm is hardened before Pyodide's code is
// even loaded, which also makes Pyodide take its non-Node paths: it never imports node:fs,
// node:child_process or ws. Everything it needs arrives in workerData; after that its only
// link to the kernel is the SharedArrayBuffer channel.

import { workerData } from 'node:worker_threads';
import { runPythonWorker } from '../src/kernel/python/worker-runtime.js';
import type { CreatePyodideModule } from '../src/kernel/python/pyodide-boot.js';
import { hardenRealm } from './harden.js';
import type { NodePythonWorkerData } from '../src/kernel/python/node-launcher.js';

const data = workerData as NodePythonWorkerData;
hardenRealm();
// Emscripten picks its environment by globals: with `process` gone it would take the d8
// shell paths (random numbers through os.system); as a "worker" it uses crypto and the
// Module hooks we pass, which is what this realm offers.
Object.defineProperty(globalThis, 'WorkerGlobalScope', { value: class WorkerGlobalScope {}, configurable: false, writable: false });
const { default: create } = (await import(data.pyodideScript)) as { default: CreatePyodideModule };
// The snapshot's bytes are needed only to boot: workerData lets go of them here, and the
// runtime once booted (a reused worker keeps its own image instead, interpreter-reset.ts).
const snapshot = data.snapshot;
data.snapshot = undefined;
await runPythonWorker(create, { module: data.module, stdlib: data.stdlib, snapshot }, {
  channel: data.channel,
  interrupt: data.interrupt,
  makeSnapshot: data.makeSnapshot,
});
