// The browser platform: the sandbox runs in a Web Worker; tool modules are fetched and
// compiled once per page (compileStreaming) and handed to each worker compiled: the shell's
// with init, the others once they are compiled (stagedModules; their tools wait for them).

import type { ModuleSpec } from '../../protocol/messages.js';
import type { ConnectOptions, KernelConnection, Platform } from '../connection.js';
import { connectWorker, type WorkerFactory } from './worker-connection.js';
import { gatewayNetwork } from '../network/gateway-network.js';
import { pageHeaders } from './page-token.js';
import { BrowserPython, type PythonLoadProgress } from '../python/browser-python.js';

/** public/wasm/manifest.json: the tool modules, their commands and what their instances need. */
export interface WasmManifest {
  modules: Array<{ name: string; file: string; bytes: number; commands: string[]; memoryMinPages: number; asyncifyBytes?: number; /** Where the module is served, when not `file` under wasmBaseUrl. */ url?: string }>;
}

export interface BrowserPlatformOptions {
  /** Where manifest.json and the .wasm files are served (default: `${BASE_URL}wasm/`). */
  wasmBaseUrl?: string;
  /**
   * The manifest, when the page has it already (the playground builds it in, each module at
   * a content-hashed URL): the downloads start without fetching manifest.json first.
   */
  wasmManifest?: WasmManifest;
  /** The Airlock server whose gateway carries network requests (default: this page's origin). */
  gatewayUrl?: string;
  /** Progress of module downloads, for loading bars: bytes done and total. */
  onProgress?: (loaded: number, total: number) => void;
  /**
   * Progress of loading Python (on the first python3 of the page): download, then the
   * memory snapshot. Only the first sandbox of a page reports it: the files are shared.
   */
  onPythonProgress?: (progress: PythonLoadProgress) => void;
  /** Where Pyodide's files are served (default: `${BASE_URL}pyodide/`). */
  pyodideBaseUrl?: string;
}

/** Extras of the app's own build (src/host/browser/index.ts). */
export interface BrowserPlatformExtras {
  /** Starts the Python snapshot builder worker (workers/python-browser-snapshot.ts). */
  createSnapshotBuilder?: () => Worker;
}

/** A page's tool modules, each compiled once; `first` is what init needs (the shell's). */
interface PageModules {
  first: Array<Promise<ModuleSpec>>;
  /** The others, with their commands (init installs them before they arrive). */
  rest: Array<{ name: string; tools: string[]; compiled: Promise<ModuleSpec> }>;
}

const pageModules = new Map<string, Promise<PageModules>>();
// Pyodide's files, like the tool modules, are loaded once per page.
const pythons = new Map<string, BrowserPython>();

async function fetchManifest(baseUrl: string): Promise<WasmManifest> {
  const manifestResponse = await fetch(new URL('manifest.json', baseUrl));
  if (!manifestResponse.ok) throw new Error(`airlock: cannot load ${manifestResponse.url}: HTTP ${manifestResponse.status}`);
  return (await manifestResponse.json()) as WasmManifest;
}

async function loadModules(baseUrl: string, given: WasmManifest | undefined, onProgress?: (loaded: number, total: number) => void): Promise<PageModules> {
  const manifest = given ?? (await fetchManifest(baseUrl));
  const total = manifest.modules.reduce((sum, m) => sum + m.bytes, 0);
  // Without a module providing bash every module is needed at init.
  const shell = manifest.modules.find((entry) => entry.commands.includes('bash'))?.name;
  let loaded = 0;
  const modules: PageModules = { first: [], rest: [] };
  for (const entry of manifest.modules) {
    const first = shell === undefined || entry.name === shell;
    // The others at a lower priority: the shell's download, which the prompt waits for, goes first.
    const request = new Request(new URL(entry.url ?? entry.file, baseUrl), { priority: first ? 'high' : 'low' });
    const compiled = WebAssembly.compileStreaming(fetch(request)).then((module): ModuleSpec => {
      loaded += entry.bytes;
      onProgress?.(loaded, total);
      return { name: entry.name, tools: entry.commands, module, memoryMinPages: entry.memoryMinPages, asyncifyBytes: entry.asyncifyBytes };
    });
    if (first) modules.first.push(compiled);
    else modules.rest.push({ name: entry.name, tools: entry.commands, compiled });
  }
  return modules;
}

function pythonFor(options: BrowserPlatformOptions, extras: BrowserPlatformExtras): BrowserPython {
  const baseUrl = options.pyodideBaseUrl ?? new URL('pyodide/', new URL(import.meta.env.BASE_URL, location.href)).href;
  let python = pythons.get(baseUrl);
  if (python === undefined) {
    python = new BrowserPython({ baseUrl, onProgress: options.onPythonProgress, createSnapshotBuilder: extras.createSnapshotBuilder });
    pythons.set(baseUrl, python);
  }
  return python;
}

/**
 * Fetches Pyodide's files and has its snapshot made now, ahead of the first python3 of the
 * page (which otherwise waits for them): resolves when Python is ready to start.
 */
export async function preloadPython(options: BrowserPlatformOptions = {}, extras: BrowserPlatformExtras = {}): Promise<void> {
  await pythonFor(options, extras).load();
}

export function browserPlatform(createWorker: WorkerFactory, options: BrowserPlatformOptions = {}, extras: BrowserPlatformExtras = {}): Platform {
  const baseUrl = options.wasmBaseUrl ?? new URL('wasm/', new URL(import.meta.env.BASE_URL, location.href)).href;
  const page = (): Promise<PageModules> => {
    let modules = pageModules.get(baseUrl);
    if (modules === undefined) {
      modules = loadModules(baseUrl, options.wasmManifest, options.onProgress);
      pageModules.set(baseUrl, modules);
      const loaded = modules;
      // A failed download is tried again by the next sandbox.
      const forget = (): void => {
        if (pageModules.get(baseUrl) === loaded) pageModules.delete(baseUrl);
      };
      loaded.then(({ first, rest }) => Promise.all([...first, ...rest.map((module) => module.compiled)])).catch(forget);
    }
    return modules;
  };
  return {
    network: gatewayNetwork(options.gatewayUrl ?? location.origin, pageHeaders()),
    async connect(connectOptions: ConnectOptions): Promise<KernelConnection> {
      const python = pythonFor(options, extras);
      return connectWorker((name) => {
        const worker = createWorker(name);
        python.attach(worker);
        return worker;
      }, connectOptions);
    },
    async modules(): Promise<ModuleSpec[]> {
      const { first, rest } = await page();
      return Promise.all([...first, ...rest.map((module) => module.compiled)]);
    },
    stagedModules() {
      const modules = page();
      return {
        // The others as placeholders: their tools are installed, their runs wait for them.
        first: modules.then(async ({ first, rest }) => [...(await Promise.all(first)), ...rest.map(({ name, tools }) => ({ name, tools, deferred: true }))]),
        rest: modules.then(({ rest }) => Promise.all(rest.map((module) => module.compiled))),
      };
    },
  };
}
