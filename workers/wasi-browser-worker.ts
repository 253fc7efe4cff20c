// Entry point of a foreign WASI program's worker in the browser: a dedicated Worker started
// by the kernel worker (src/kernel/abi/foreign/browser-launcher.ts), served with the same CSP as the
// kernel worker (no string code generation, connect-src 'none'). Its realm is hardened
// before any program runs. Its first message is its call channel; every later one is a
// run order (a compiled module, a shared memory). It never posts anything back: the
// channel is its only link to the kernel (src/kernel/abi/foreign/).

import { ForeignWorkerRuntime, type ForeignRunOrder, type ForeignWorkerInit } from '../src/kernel/abi/foreign/foreign-instance.js';
import { hardenRealm, removeGlobals } from './harden.js';

const scope = globalThis as unknown as DedicatedWorkerGlobalScope;
hardenRealm(scope);
removeGlobals(scope, ['postMessage']);

let runtime: ForeignWorkerRuntime | undefined;
scope.addEventListener('message', (event: MessageEvent) => {
  if (runtime === undefined) runtime = new ForeignWorkerRuntime(event.data as ForeignWorkerInit);
  else runtime.run(event.data as ForeignRunOrder);
});
