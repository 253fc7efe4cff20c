// A sandbox worker in the browser: a module Web Worker from workers/browser-kernel.ts,
// reached through comlink. Messages from it are size-checked before they are read.

import * as Comlink from 'comlink';
import { guardEndpoint, installErrorTransfer } from '../../protocol/channel.js';
import { isWorkerEvent, type KernelApi, type WorkerEvent } from '../../protocol/messages.js';
import type { ConnectOptions, KernelConnection } from '../connection.js';

/** Starts the worker; its name carries the settings it needs before the first message. */
export type WorkerFactory = (name: string) => Worker;

/** The name a kernel worker is started with: it carries the message size limit it enforces. */
export function kernelWorkerName(messageBytes: number): string {
  return `airlock-sandbox:${messageBytes}`;
}

export function connectWorker(createWorker: WorkerFactory, options: ConnectOptions): KernelConnection {
  installErrorTransfer();
  const worker = createWorker(kernelWorkerName(options.messageBytes));
  const listeners = new Set<(event: WorkerEvent) => void>();
  let terminated = false;
  let resolveDied: (reason: string) => void = () => undefined;
  const died = new Promise<string>((resolve) => {
    resolveDied = resolve;
  });
  const endpoint = guardEndpoint(worker as unknown as Comlink.Endpoint, options.messageBytes, (size) => {
    resolveDied(`the sandbox sent a ${size}-byte message; the limit messageBytes is ${options.messageBytes}`);
    worker.terminate();
  });
  endpoint.addEventListener('message', (event: Event) => {
    const data = (event as MessageEvent).data;
    if (isWorkerEvent(data)) for (const listener of listeners) listener(data);
  });
  worker.addEventListener('error', (event) => {
    if (!terminated) resolveDied(`the sandbox worker failed: ${event.message || 'unknown error'}`);
  });
  return {
    api: Comlink.wrap<KernelApi>(endpoint),
    onEvent: (listener) => listeners.add(listener),
    died,
    // The browser's worker is the browser's own sandbox: no OS layer of ours.
    isolation: null,
    terminate() {
      terminated = true;
      worker.terminate();
    },
  };
}
