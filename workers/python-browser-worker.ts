// Entry point of a Python worker in the browser: a dedicated Worker started by the kernel
// worker (src/kernel/python/browser-launcher.ts), served with the same CSP as the kernel worker
// (no string code generation, connect-src 'none'). Its realm is hardened before Pyodide's
// code is loaded; everything it needs arrives in its one message, after which its only
// link to the kernel is the SharedArrayBuffer channel. It never posts anything back.

import type { CreatePyodideModule } from '../src/kernel/python/pyodide-boot.js';
import { runPythonWorker } from '../src/kernel/python/worker-runtime.js';
import { hardenRealm, removeGlobals } from './harden.js';
import type { BrowserPythonWorkerData } from '../src/protocol/python-assets.js';

const scope = globalThis as unknown as DedicatedWorkerGlobalScope;
hardenRealm(scope);

const data = await new Promise<BrowserPythonWorkerData>((resolve) => {
  scope.addEventListener('message', (event: MessageEvent) => resolve(event.data as BrowserPythonWorkerData), { once: true });
});
// This realm has nothing to say to its parent: the channel is its only link.
removeGlobals(scope, ['postMessage']);
const { default: create } = (await import(/* @vite-ignore */ data.script)) as { default: CreatePyodideModule };
await runPythonWorker(create, { module: data.module, stdlib: data.stdlib, snapshot: data.snapshot }, {
  channel: data.channel,
  interrupt: data.interrupt,
  makeSnapshot: data.makeSnapshot,
});
