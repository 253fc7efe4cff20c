// Entry point of a sandbox child process in Node (started by src/host/node/child-process.ts
// with --disallow-code-generation-from-strings and the permission model). It talks to the
// host only through length-checked frames on fd 3, compiles the tool modules it was told
// about, hardens its realm, then serves the KernelApi.

import { readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import * as Comlink from 'comlink';
import { KernelService } from '../src/kernel/kernel-service.js';
import { installErrorTransfer } from '../src/protocol/channel.js';
import type { KernelInit, ModuleSpec } from '../src/protocol/messages.js';
import { framedEndpoint } from '../src/protocol/node-framing.js';
import { FORBIDDEN_GLOBALS, hardenRealm } from './harden.js';
import { nodeInlinePythonPrograms, nodePythonPrograms } from '../src/kernel/python/node-launcher.js';
import { nodeForeignWorkerFactory } from '../src/kernel/abi/foreign/node-launcher.js';
import { importedMemoryMinPages } from '../src/kernel/abi/wasm/wasm-program.js';

const exit = process.exit.bind(process);
const argument = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const messageBytes = Number(argument('airlock-message-bytes') ?? 8 * 1024 * 1024);
const wasmDir = argument('airlock-wasm-dir');
const pyodideDir = argument('airlock-pyodide-dir');
const pythonSnapshot = argument('airlock-python-snapshot');
const pythonInline = process.argv.includes('--airlock-python-inline');
// Bundled next to this file by scripts/bundle-node-kernel.mjs.
const pythonWorkerScript = new URL('./python-worker.mjs', import.meta.url);
const wasiWorkerScript = new URL('./wasi-worker.mjs', import.meta.url);

interface ManifestModule {
  name: string;
  file: string;
  commands: string[];
  asyncifyBytes?: number;
}

// Compile every module of the manifest now, while the child waits in the warm pool. The
// file's bytes are not kept: V8 holds its own copy inside the module, and the kernel needs
// only the memory's initial size from them (4.4 MiB less per child; docs/limits.md, "What a
// sandbox costs"). V8 compiles each function lazily on its first call, so this decodes
// and validates the modules but generates no code yet.
const compiled = new Map<string, ModuleSpec>();
if (wasmDir !== undefined) {
  const manifest = JSON.parse(readFileSync(join(wasmDir, 'manifest.json'), 'utf8')) as { modules: ManifestModule[] };
  for (const entry of manifest.modules) {
    const bytes = readFileSync(join(wasmDir, entry.file));
    compiled.set(entry.name, { name: entry.name, tools: entry.commands, module: new WebAssembly.Module(bytes), memoryMinPages: importedMemoryMinPages(bytes), asyncifyBytes: entry.asyncifyBytes });
  }
}

const socket = new Socket({ fd: 3, readable: true, writable: true });
socket.on('close', () => exit(0));
socket.on('error', () => exit(1));
const endpoint = framedEndpoint(socket, messageBytes, () => exit(3));
installErrorTransfer();

class NodeKernelService extends KernelService {
  override async init(init: KernelInit): Promise<{ tools: string[] }> {
    // Modules named without bytes are the ones compiled above.
    const modules = init.modules.map((spec) => (spec.bytes === undefined && spec.module === undefined ? compiled.get(spec.name) ?? spec : spec));
    return super.init({ ...init, modules });
  }
}

const service = new NodeKernelService((event) => endpoint.postMessage(event), FORBIDDEN_GLOBALS, () =>
  pythonInline ? nodeInlinePythonPrograms(pyodideDir, pythonSnapshot) : nodePythonPrograms(pyodideDir, pythonWorkerScript, pythonSnapshot),
  nodeForeignWorkerFactory(wasiWorkerScript),
);
hardenRealm();
Comlink.expose(service, endpoint);
