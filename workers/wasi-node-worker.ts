// Entry point of a foreign WASI program's worker in Node: a worker_thread of the sandbox
// child, so it shares the child's permission model and --disallow-code-generation-from-
// strings. Its realm is hardened before any program runs; it takes run orders (a compiled
// module, a shared memory) from its parent port and makes every system call over the
// SharedArrayBuffer channel (src/kernel/abi/foreign/).

import { parentPort, workerData } from 'node:worker_threads';
import { ForeignWorkerRuntime, type ForeignRunOrder, type ForeignWorkerInit } from '../src/kernel/abi/foreign/foreign-instance.js';
import { hardenRealm } from './harden.js';

const port = parentPort;
const runtime = new ForeignWorkerRuntime(workerData as ForeignWorkerInit);
hardenRealm();
port?.on('message', (order: ForeignRunOrder) => runtime.run(order));
