// The host API in the browser: `Sandbox.create()` runs the sandbox in a Web Worker.

import { Sandbox as SandboxCore } from '../sandbox.js';
import type { SandboxOptions } from '../types.js';
import { browserPlatform, preloadPython, type BrowserPlatformOptions } from './platform.js';

export * from '../types.js';
export * from '../../protocol/errors.js';
export { DEFAULT_LIMITS } from '../../protocol/limits.js';
export { serverExtensions } from './server-extensions.js';

export type BrowserSandboxOptions = SandboxOptions & BrowserPlatformOptions;
export type { PythonLoadProgress } from '../python/browser-python.js';

import KernelWorker from '../../../workers/browser-kernel.ts?worker';
import SnapshotBuilderWorker from '../../../workers/python-browser-snapshot.ts?worker';

const createWorker = (name: string): Worker => new KernelWorker({ name });
const createSnapshotBuilder = (): Worker => new SnapshotBuilderWorker({ name: 'airlock-python-snapshot' });

export class Sandbox extends SandboxCore {
  static create(options: BrowserSandboxOptions = {}): Promise<Sandbox> {
    return Sandbox.createOn(browserPlatform(createWorker, options, { createSnapshotBuilder }), options);
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
