// Entry point of the sandbox Web Worker. Served with a CSP that forbids string code
// generation and every connection (connect-src 'none'); wasm modules arrive compiled from
// the host in init(). The realm is hardened before the kernel serves anything.
//
// Python (docs/python.md): where SharedArrayBuffer exists (a cross-origin isolated page)
// each interpreter runs in a nested Worker of this one (mode 1), with Pyodide's assets
// handed down by the page over a MessagePort of its own; elsewhere python3 says why it
// cannot run.

import * as Comlink from 'comlink';
import { KernelService } from '../src/kernel/kernel-service.js';
import type { ExternalProgram } from '../src/kernel/proc/module-registry.js';
import type { Process } from '../src/kernel/proc/process.js';
import type { ProcessSyscalls } from '../src/kernel/proc/process-syscalls.js';
import { guardEndpoint, installErrorTransfer } from '../src/protocol/channel.js';
import { FORBIDDEN_GLOBALS, hardenRealm } from './harden.js';
import { PageAssetsLink, browserPythonPrograms, type WorkerConstructor } from './python-browser-host.js';
import { isPythonPortMessage } from './python-browser-protocol.js';
import pythonWorkerScript from './python-browser-worker.ts?worker&url';

const scope = globalThis as unknown as DedicatedWorkerGlobalScope;
// The host names the worker `airlock-sandbox:<messageBytes>`.
const messageBytes = Number(scope.name.split(':')[1] ?? 8 * 1024 * 1024) || 8 * 1024 * 1024;
const post = scope.postMessage.bind(scope);
const close = scope.close.bind(scope);
// Captured before hardenRealm() removes it: only this module starts Python workers.
const NestedWorker = (globalThis as { Worker?: WorkerConstructor }).Worker;
const pythonWorkerUrl = new URL(pythonWorkerScript, scope.location.href).href;

const pythonAssets = new PageAssetsLink();
// The page's Python port travels outside comlink; it is taken before comlink sees it.
scope.addEventListener('message', (event: MessageEvent) => {
  if (!isPythonPortMessage(event.data)) return;
  event.stopImmediatePropagation();
  pythonAssets.attach(event.data.airlockPythonPort);
});

const PYTHON_TOOLS = ['python3', 'python', 'pip', 'pip3'];

/** Exit status of a command that cannot be executed (POSIX). */
const CANNOT_EXECUTE = 126;

/** python3 where no mode can run it: says why instead of failing obscurely. */
class PythonUnavailable implements ExternalProgram {
  readonly kind = 'external';
  readonly name = 'python';

  constructor(private readonly reason: string) {}

  async run(process: Process, sys: ProcessSyscalls): Promise<number> {
    const name = process.argv[0]?.split('/').pop() ?? 'python3';
    try {
      await sys.write(2, new TextEncoder().encode(`${name}: ${this.reason}\n`));
    } catch {
      // stderr closed: the status still says it.
    }
    return CANNOT_EXECUTE;
  }
}

function pythonPrograms(): Array<{ tools: string[]; program: ExternalProgram }> {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  if (isolated && typeof SharedArrayBuffer === 'function' && NestedWorker !== undefined) {
    return browserPythonPrograms(NestedWorker, pythonWorkerUrl, pythonAssets);
  }
  const reason = 'needs a cross-origin isolated page (SharedArrayBuffer), which this page is not; Python cannot run here yet';
  return [{ tools: PYTHON_TOOLS, program: new PythonUnavailable(reason) }];
}

installErrorTransfer();
const service = new KernelService((event) => post(event), FORBIDDEN_GLOBALS, () => pythonPrograms());
const endpoint = guardEndpoint(scope as unknown as Comlink.Endpoint, messageBytes, () => close());
hardenRealm(scope);
Comlink.expose(service, endpoint);
