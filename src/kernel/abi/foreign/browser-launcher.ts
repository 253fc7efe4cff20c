// The browser kernel worker's side of foreign WASI programs: each runs in a nested
// dedicated Worker started from the bundled wasi-browser-worker, reused for later
// processes (src/kernel/abi/foreign/foreign-program.ts). Only where SharedArrayBuffer
// exists (a cross-origin isolated page): the call channel needs it.

import type { ForeignWorkerFactory, ForeignWorkerHandle } from './foreign-program.js';

/** The Worker constructor, captured before the realm was hardened (Python's workers use it too). */
export type WorkerConstructor = new (url: string | URL, options?: WorkerOptions) => Worker;

/** The factory that starts foreign-program workers from `script`. */
export function browserForeignWorkerFactory(NestedWorker: WorkerConstructor, script: string): ForeignWorkerFactory {
  return (init): ForeignWorkerHandle => {
    let fail: (reason: string) => void = () => undefined;
    const failed = new Promise<string>((resolve) => {
      fail = resolve;
    });
    const worker = new NestedWorker(script, { type: 'module', name: 'airlock-wasi' });
    worker.addEventListener('error', (event) => fail(`the worker failed: ${event.message || 'it could not be loaded'}`));
    worker.postMessage(init);
    return {
      failed,
      post: (order) => worker.postMessage(order),
      terminate: () => worker.terminate(),
    };
  };
}
