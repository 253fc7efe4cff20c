// Entry point of the sandbox Web Worker. Served with a CSP that forbids string code
// generation and every connection (connect-src 'none'); wasm modules arrive compiled from
// the host in init(). The realm is hardened before the kernel serves anything.

import * as Comlink from 'comlink';
import { KernelService } from '../src/kernel/kernel-service.js';
import { guardEndpoint, installErrorTransfer } from '../src/protocol/channel.js';
import { FORBIDDEN_GLOBALS, hardenRealm } from './harden.js';

const scope = globalThis as unknown as DedicatedWorkerGlobalScope;
// The host names the worker `airlock-sandbox:<messageBytes>`.
const messageBytes = Number(scope.name.split(':')[1] ?? 8 * 1024 * 1024) || 8 * 1024 * 1024;
const post = scope.postMessage.bind(scope);
const close = scope.close.bind(scope);

installErrorTransfer();
const service = new KernelService((event) => post(event), FORBIDDEN_GLOBALS);
const endpoint = guardEndpoint(scope as unknown as Comlink.Endpoint, messageBytes, () => close());
hardenRealm(scope);
Comlink.expose(service, endpoint);
