// The host API in the browser: `Sandbox.create()` runs the sandbox in a Web Worker.

import { Sandbox as SandboxCore } from '../sandbox.js';
import type { SandboxOptions } from '../types.js';
import { browserPlatform, preloadPython, type BrowserPlatformOptions } from './platform.js';
import { DEFAULT_LIMITS } from '../../protocol/limits.js';
import { kernelWorkerName } from './worker-connection.js';

export * from '../types.js';
export * from '../../protocol/errors.js';
export { DEFAULT_LIMITS } from '../../protocol/limits.js';
export { serverExtensions } from './server-extensions.js';

export type BrowserSandboxOptions = SandboxOptions & BrowserPlatformOptions;
export type { PythonLoadProgress } from '../python/browser-python.js';

import KernelWorker from '../../../workers/browser-kernel.ts?worker';
import SnapshotBuilderWorker from '../../../workers/python-browser-snapshot.ts?worker';

/** A kernel worker started ahead of the first Sandbox.create() (Sandbox.prestart), by name. */
let spare: { name: string; worker: Worker } | undefined;
const createWorker = (name: string): Worker => {
  const ready = spare;
  spare = undefined;
  if (ready?.name === name) return ready.worker;
  // Started for other settings than the sandbox's: its name (read once, at its start) is wrong.
  ready?.worker.terminate();
  return new KernelWorker({ name });
};
const createSnapshotBuilder = (): Worker => new SnapshotBuilderWorker({ name: 'airlock-python-snapshot' });

export class Sandbox extends SandboxCore {
  static create(options: BrowserSandboxOptions = {}): Promise<Sandbox> {
    return Sandbox.createOn(browserPlatform(createWorker, options, { createSnapshotBuilder }), options);
  }

  /**
   * Starts what the page's first sandbox waits for, while the page does other work (reads
   * its saved workspace): the tool modules' download and compilation, and one kernel worker
   * (its script loaded and run), which the next Sandbox.create() with the same
   * `limits.messageBytes` takes. Neither is needed for a sandbox to be created; they only
   * make it sooner. Progress of the downloads goes to `onProgress`.
   */
  static prestart(options: Pick<BrowserSandboxOptions, 'wasmBaseUrl' | 'wasmManifest' | 'onProgress'> & { messageBytes?: number } = {}): void {
    // The worker first: its script must download and run before it can take init, and the
    // playground's <head> has started the shell module's download already.
    if (spare === undefined) {
      const name = kernelWorkerName(options.messageBytes ?? DEFAULT_LIMITS.messageBytes);
      const worker = new KernelWorker({ name });
      const started = { name, worker };
      // A worker that failed before a sandbox took it is not handed out (its error event,
      // which the connection waits for, has passed): the sandbox starts its own.
      worker.addEventListener('error', () => {
        if (spare !== started) return;
        spare = undefined;
        worker.terminate();
      });
      spare = started;
    }
    browserPlatform(createWorker, options, { createSnapshotBuilder }).modules().catch(() => undefined);
  }

  /**
   * Loads Python ahead of the page's first python3 (Pyodide's files and its memory
   * snapshot, shared by the page's sandboxes); resolves when it is ready. Progress goes to
   * `onPythonProgress` (of the first sandbox or of this call, whichever came first).
   */
  static preloadPython(options: Pick<BrowserPlatformOptions, 'pyodideBaseUrl' | 'onPythonProgress'> = {}): Promise<void> {
    return preloadPython(options, { createSnapshotBuilder });
  }
}
