// Entry point of the sandbox Web Worker. Served with a CSP that forbids string code
// generation and every connection (connect-src 'none'); wasm modules arrive compiled from
// the host in init(). The realm is hardened before the kernel serves anything.
//
// Python (docs/python.md): where SharedArrayBuffer exists (a cross-origin isolated page)
// each interpreter runs in a nested Worker of this one (mode 1); elsewhere it runs inline
// on this thread (mode 3). Either way Pyodide's assets are handed down by the page over a
// MessagePort of its own. Foreign WASI programs run in nested Workers too, where
// SharedArrayBuffer exists (docs/wasi.md).

import * as Comlink from 'comlink';
import { KernelService } from '../src/kernel/kernel-service.js';
import type { ExternalProgram } from '../src/kernel/sys/external-program.js';
import { createInlinePythonProgram } from '../src/kernel/python/inline-program.js';
import type { CreatePyodideModule } from '../src/kernel/python/pyodide-boot.js';
import { guardEndpoint, installErrorTransfer } from '../src/protocol/channel.js';
import { FORBIDDEN_GLOBALS, hardenRealm } from './harden.js';
import { PYTHON_TOOLS, PageAssetsLink, browserPythonPrograms } from '../src/kernel/python/browser-launcher.js';
import { isPythonPortMessage } from '../src/protocol/python-assets.js';
import pythonWorkerScript from './python-browser-worker.ts?worker&url';
import wasiWorkerScript from './wasi-browser-worker.ts?worker&url';
import { browserForeignWorkerFactory, type WorkerConstructor } from '../src/kernel/abi/foreign/browser-launcher.js';

const scope = globalThis as unknown as DedicatedWorkerGlobalScope;
// The host names the worker `airlock-sandbox:<messageBytes>`.
const messageBytes = Number(scope.name.split(':')[1] ?? 8 * 1024 * 1024) || 8 * 1024 * 1024;
const post = scope.postMessage.bind(scope);
const close = scope.close.bind(scope);
// Captured before hardenRealm() removes it: only this module starts Python workers.
const NestedWorker = (globalThis as { Worker?: WorkerConstructor }).Worker;
const pythonWorkerUrl = new URL(pythonWorkerScript, scope.location.href).href;
const wasiWorkerUrl = new URL(wasiWorkerScript, scope.location.href).href;

const pythonAssets = new PageAssetsLink();
// The page's Python port travels outside comlink; it is taken before comlink sees it.
scope.addEventListener('message', (event: MessageEvent) => {
  if (!isPythonPortMessage(event.data)) return;
  event.stopImmediatePropagation();
  pythonAssets.attach(event.data.airlockPythonPort);
});

/**
 * Mode 3 for pages without SharedArrayBuffer: Pyodide in this (hardened) realm, its script
 * imported on first use from the URL the page sent with the assets.
 */
function inlinePython(): ExternalProgram {
  let create: Promise<CreatePyodideModule> | undefined;
  const loadCreate = (): Promise<CreatePyodideModule> => {
    create ??= pythonAssets.get().then(async (assets) => ((await import(/* @vite-ignore */ assets.script)) as { default: CreatePyodideModule }).default);
    create.catch(() => {
      create = undefined;
    });
    return create;
  };
  return createInlinePythonProgram({
    load: loadCreate,
    assets: async () => {
      const { module, stdlib, snapshot } = await pythonAssets.get();
      return { module, stdlib, snapshot };
    },
  });
}

/** Whether nested workers with a SharedArrayBuffer channel can run here (Python's mode 1, foreign WASI programs). */
function canBlockInWorkers(): boolean {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  return isolated && typeof SharedArrayBuffer === 'function' && NestedWorker !== undefined;
}

function pythonPrograms(): Array<{ tools: string[]; program: ExternalProgram }> {
  if (canBlockInWorkers() && NestedWorker !== undefined) {
    return browserPythonPrograms(NestedWorker, pythonWorkerUrl, pythonAssets);
  }
  return [{ tools: PYTHON_TOOLS, program: inlinePython() }];
}

installErrorTransfer();
// Foreign WASI programs only where they can block in a worker; elsewhere they say so (126).
const foreignWorkers = canBlockInWorkers() && NestedWorker !== undefined ? browserForeignWorkerFactory(NestedWorker, wasiWorkerUrl) : undefined;
const service = new KernelService((event) => post(event), FORBIDDEN_GLOBALS, () => pythonPrograms(), foreignWorkers);
const endpoint = guardEndpoint(scope as unknown as Comlink.Endpoint, messageBytes, () => close());
hardenRealm(scope);
Comlink.expose(service, endpoint);
