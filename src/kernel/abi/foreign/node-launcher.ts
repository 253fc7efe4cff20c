// The Node sandbox child's side of foreign WASI programs: each runs in a worker_thread
// started from wasi-worker.mjs (bundled beside kernel.mjs), reused for later processes.

import { Worker } from 'node:worker_threads';
import type { ForeignWorkerFactory, ForeignWorkerHandle } from './foreign-program.js';

/** The factory that starts foreign-program workers from `workerScript`. */
export function nodeForeignWorkerFactory(workerScript: URL): ForeignWorkerFactory {
  return (init): ForeignWorkerHandle => {
    let fail: (reason: string) => void = () => undefined;
    const failed = new Promise<string>((resolve) => {
      fail = resolve;
    });
    const worker = new Worker(workerScript, { workerData: init, stdout: true, stderr: true, env: {} });
    // An idle worker must not keep the child alive.
    worker.unref();
    worker.on('error', (error) => fail(error instanceof Error ? error.message : String(error)));
    worker.on('exit', (code) => fail(`the worker ended (exit ${code})`));
    return {
      failed,
      post: (order) => worker.postMessage(order),
      terminate: () => void worker.terminate(),
    };
  };
}
