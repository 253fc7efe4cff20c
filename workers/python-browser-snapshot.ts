// Entry point of the page's snapshot builder (src/host/python/browser-python.ts): a worker
// started for this alone, served with the sandbox workers' CSP and hardened like them. It
// boots one Python worker in snapshot mode from the assets the page sends — no user code
// ever runs here — collects the snapshot it reports over the channel and posts the bytes
// up for the page to cache. The browser counterpart of workers/python-snapshot-builder.ts.

import { ChannelServer } from '../src/kernel/python/channel.js';
import { collectSnapshot } from '../src/kernel/python/snapshot-collector.js';
import { hardenRealm } from './harden.js';
import { browserPythonWorkerFactory } from '../src/kernel/python/browser-launcher.js';
import type { WorkerConstructor } from '../src/kernel/abi/foreign/browser-launcher.js';
import type { BuilderAnswer, BuilderRequest, PythonAssetsMessage } from '../src/protocol/python-assets.js';
import pythonWorkerScript from './python-browser-worker.ts?worker&url';

const scope = globalThis as unknown as DedicatedWorkerGlobalScope;
const NestedWorker = (globalThis as { Worker?: WorkerConstructor }).Worker;
const post = scope.postMessage.bind(scope);
const pythonWorkerUrl = new URL(pythonWorkerScript, scope.location.href).href;
hardenRealm(scope);

const answer = (message: BuilderAnswer): void => post(message, message.op === 'snapshot' ? [message.snapshot.buffer] : []);

async function build(request: BuilderRequest): Promise<BuilderAnswer> {
  if (NestedWorker === undefined || typeof SharedArrayBuffer !== 'function') return { op: 'failed', reason: 'no nested workers or SharedArrayBuffer' };
  const assets: PythonAssetsMessage = { op: 'assets', module: request.module, stdlib: request.stdlib, script: request.script };
  const channel = ChannelServer.create();
  const factory = browserPythonWorkerFactory(NestedWorker, pythonWorkerUrl, () => Promise.resolve(assets), true);
  const worker = factory({ channel: channel.buffer, interrupt: new SharedArrayBuffer(4) });
  try {
    const outcome = await collectSnapshot(channel, worker.failed);
    return outcome.ok ? { op: 'snapshot', snapshot: outcome.snapshot } : { op: 'failed', reason: outcome.reason };
  } finally {
    channel.close();
    worker.terminate();
  }
}

scope.addEventListener('message', (event: MessageEvent) => {
  build(event.data as BuilderRequest).then(answer, (error: unknown) => answer({ op: 'failed', reason: error instanceof Error ? error.message : String(error) }));
}, { once: true });
