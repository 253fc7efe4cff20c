// Entry point of a Python worker in the browser: a dedicated Worker started by the kernel
// worker (workers/python-browser-host.ts), served with the same CSP as the kernel worker
// (no string code generation, connect-src 'none'). Its realm is hardened before Pyodide's
// code is loaded; everything it needs arrives in its one message, after which its only
// link to the kernel is the SharedArrayBuffer channel. It never posts anything back.

import type { CreatePyodideModule } from '../src/kernel/python/pyodide-boot.js';
import { runPythonWorker } from '../src/kernel/python/worker-runtime.js';
import { hardenRealm } from './harden.js';
import type { BrowserPythonWorkerData } from './python-browser-protocol.js';

const scope = globalThis as unknown as DedicatedWorkerGlobalScope;
hardenRealm(scope);

/**
 * Chromium's workers also have the old sandboxed-filesystem API (origin storage) and
 * notifications, which FORBIDDEN_GLOBALS does not list yet.
 * TODO(harden): move these into FORBIDDEN_GLOBALS so the kernel realm loses them too.
 */
const BROWSER_WORKER_EXTRAS = ['webkitRequestFileSystem', 'webkitRequestFileSystemSync', 'webkitResolveLocalFileSystemURL', 'webkitResolveLocalFileSystemSyncURL', 'Notification', 'StorageManager', 'LockManager'];

/** Removes `names` from the scope and its prototypes and shadows them (as hardenRealm does). */
function removeGlobals(names: readonly string[]): void {
  for (const name of names) {
    for (let holder: object | null = scope; holder !== null; holder = Object.getPrototypeOf(holder)) {
      if (Object.prototype.hasOwnProperty.call(holder, name)) Reflect.deleteProperty(holder, name);
    }
    try {
      Object.defineProperty(scope, name, { value: undefined, writable: false, configurable: false });
    } catch {
      // Non-configurable on the scope itself: it was deleted above or cannot be replaced.
    }
  }
}
removeGlobals(BROWSER_WORKER_EXTRAS);

const data = await new Promise<BrowserPythonWorkerData>((resolve) => {
  scope.addEventListener('message', (event: MessageEvent) => resolve(event.data as BrowserPythonWorkerData), { once: true });
});
// This realm has nothing to say to its parent: the channel is its only link.
removeGlobals(['postMessage']);
const { default: create } = (await import(/* @vite-ignore */ data.script)) as { default: CreatePyodideModule };
await runPythonWorker(create, { module: data.module, stdlib: data.stdlib, snapshot: data.snapshot }, {
  channel: data.channel,
  interrupt: data.interrupt,
  makeSnapshot: data.makeSnapshot,
});
