// Starts Pyodide inside a Python worker from what the kernel hands over — a compiled
// WebAssembly.Module, the stdlib zip bytes and optionally a memory snapshot — instead of
// `loadPyodide()`, which would fetch or read files itself (the worker may do neither) and,
// in Node, import node:fs, node:vm and node:child_process into the realm. This mirrors
// pyodide.ts's loadPyodide (pyodide 314.0.7) step by step, minus the loading.

import { InterpreterSeal } from './interpreter-seal.js';
import type { WasmParts } from './interpreter-reset.js';

/** Pyodide's BUILD_ID for the pinned version (pyodide.mjs); pyodide-boot.test.ts checks it. */
export const PYODIDE_BUILD_ID = '990c3b51a9722d62434de2bbc9643732658d488c1b6d467f22c1b6beba80d497';
export const PYODIDE_VERSION = '314.0.7';
/** Bump when what goes into a snapshot changes (imports done before it, the recipe). */
export const SNAPSHOT_RECIPE = 1;

const LOCKFILE_INFO = { abi_version: '2026_0', arch: 'wasm32', platform: 'emscripten_5_0_3', python: '3.14.2' };

export interface PyodideAssets {
  module: WebAssembly.Module;
  stdlib: Uint8Array;
  snapshot?: Uint8Array;
}

/** The Python objects of Pyodide's API that the runtime uses (PyProxy calls). */
export interface PyProxyCallable {
  (...args: unknown[]): unknown;
  destroy?(): void;
}

export interface PyodideApi {
  runPython(code: string, options?: { globals?: unknown; filename?: string }): unknown;
  makeMemorySnapshot(): Uint8Array;
  setInterruptBuffer(buffer: Int32Array): void;
  registerJsModule(name: string, module: object): void;
  unregisterJsModule(name: string): void;
  FS: unknown;
  globals: { get(name: string): unknown };
  toPy(value: unknown): unknown;
}

interface EmscriptenModuleLike {
  API: {
    version: string;
    restoreSnapshot(snapshot: Uint8Array): unknown;
    finalizeBootstrap(config: unknown, deserializer?: unknown): PyodideApi;
    packageIndexReady: Promise<void>;
    lockFilePromise?: Promise<unknown>;
  };
  FS: {
    mkdirTree(path: string): void;
    writeFile(path: string, data: Uint8Array): void;
    chdir(path: string): void;
  };
  ENV: Record<string, string>;
  /** Emscripten's in-memory filesystem (its operation tables are watched by a reset). */
  MEMFS?: unknown;
  HEAPU32: Uint32Array;
  _Py_Version: number;
  addRunDependency(id: string): void;
  removeRunDependency(id: string): void;
  locateFile: (path: string) => string;
  ExitStatus: new (code: number) => Error;
}

export type CreatePyodideModule = (settings: object) => Promise<unknown>;

export class PyodideBootError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PyodideBootError';
  }
}

/** The snapshot BUILD_ID: Pyodide's build and our recipe, as the 64 hex digits Pyodide stores. */
export async function snapshotBuildId(): Promise<string> {
  const bytes = new TextEncoder().encode(`${PYODIDE_BUILD_ID}:${SNAPSHOT_RECIPE}`);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export interface BootOptions {
  makeSnapshot: boolean;
  /** Startup messages Pyodide prints before our streams exist. */
  print(text: string): void;
}

export interface BootedPyodide {
  pyodide: PyodideApi;
  module: EmscriptenModuleLike;
  /** Closed before user code runs (interpreter-seal.ts). */
  seal: InterpreterSeal;
  /** The instance and its GOT, for a reset to the state before a process (interpreter-reset.ts). */
  wasm: WasmParts;
}

/**
 * Runs `start` (the synchronous part of Pyodide's factory) with no `MessageChannel` in the
 * realm. Pyodide's API code makes one as it loads (ensureSharedChannel, for its
 * scheduleCallback) and never closes it; a port with an onmessage handler is a GC root,
 * and that handler's closure holds the whole Emscripten Module with its wasm memory. In a
 * realm that outlives the interpreter (inline mode: the kernel's) every interpreter's ~45
 * MiB stayed until the realm ended, and after some forty the sandbox's memory ceiling (or
 * Chromium's wasm memory budget) was reached. Without the constructor Pyodide takes its own
 * fallback, setTimeout(0); nothing in the sandbox uses that scheduler (the seal refuses
 * Python's calls into JS). The factory reaches ensureSharedChannel before its first await
 * in a realm without `process` (every realm Pyodide runs in here), so the name is back
 * before any other code of the realm runs.
 */
export function withoutMessageChannel<T>(start: () => T): T {
  const scope = globalThis as Record<string, unknown>;
  const own = Object.getOwnPropertyDescriptor(scope, 'MessageChannel');
  if (own !== undefined && own.configurable !== true) return start();
  Object.defineProperty(scope, 'MessageChannel', { value: undefined, configurable: true, writable: true });
  try {
    return start();
  } finally {
    if (own === undefined) delete scope.MessageChannel;
    else Object.defineProperty(scope, 'MessageChannel', own);
  }
}

/** Boots Pyodide; throws PyodideBootError (e.g. a snapshot of another build). */
export async function bootPyodide(create: CreatePyodideModule, assets: PyodideAssets, options: BootOptions): Promise<BootedPyodide> {
  const buildId = await snapshotBuildId();
  const seal = new InterpreterSeal();
  let wasm: WasmParts | undefined;
  const env: Record<string, string> = { HOME: '/home/user', PYTHONINSPECT: '1' };
  const config = {
    jsglobals: {},
    args: [],
    env,
    packages: [],
    packageCacheDir: '',
    packageBaseUrl: '',
    cdnUrl: '',
    indexURL: '',
    enableRunUntilComplete: false,
    checkAPIVersion: true,
    BUILD_ID: buildId,
    _makeSnapshot: options.makeSnapshot,
    lockFileContents: { info: LOCKFILE_INFO, packages: {} },
  };
  const runtimeEnv = {
    IN_NODE: false, IN_NODE_COMMONJS: false, IN_NODE_ESM: false, IN_BUN: false, IN_DENO: false, IN_SAFARI: false,
    IN_SHELL: false, IN_WORKERD: false, IN_BROWSER: false, IN_BROWSER_MAIN_THREAD: false, IN_BROWSER_WEB_WORKER: false,
  };
  const API = { config, runtimeEnv, lockFilePromise: Promise.resolve(config.lockFileContents) };
  const settings: Record<string, unknown> = {
    noImageDecoding: true,
    noAudioDecoding: true,
    noWasmDecoding: false,
    preRun: [
      (module: EmscriptenModuleLike) => {
        const versionInt = module.HEAPU32[module._Py_Version >>> 2] ?? 0;
        const major = (versionInt >>> 24) & 0xff;
        const minor = (versionInt >>> 16) & 0xff;
        (module.API as unknown as { pyVersionTuple: number[]; sitePackages: string }).pyVersionTuple = [major, minor, (versionInt >>> 8) & 0xff];
        const sitePackages = `/lib/python${major}.${minor}/site-packages`;
        (module.API as unknown as { sitePackages: string }).sitePackages = sitePackages;
        module.FS.mkdirTree(sitePackages);
        module.FS.mkdirTree(`/lib/python${major}.${minor}/lib-dynload`);
        module.FS.writeFile(`/lib/python${major}${minor}.zip`, assets.stdlib);
      },
      (module: EmscriptenModuleLike) => {
        module.FS.mkdirTree(env.HOME as string);
        module.FS.chdir(env.HOME as string);
      },
      (module: EmscriptenModuleLike) => {
        Object.assign(module.ENV, env);
      },
    ],
    print: options.print,
    printErr: options.print,
    onExit(code: number) {
      settings.exitCode = code;
    },
    thisProgram: '/usr/bin/python3',
    arguments: [],
    API,
    locateFile: (path: string) => path,
    instantiateWasm(imports: Record<string, Record<string, unknown>>, success: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
      // Pyodide's tiny jsverror.wasm helper has a plain-JS fallback (used on iOS); it is
      // equivalent for us and saves compiling a module in the realm.
      const marker = Symbol('error marker');
      const env = imports.env as Record<string, unknown>;
      env.Jsv_GetError_import = () => marker;
      env.JsvError_Check = (value: unknown) => value === marker;
      seal.guardImports(imports);
      void WebAssembly.instantiate(assets.module, imports as WebAssembly.Imports).then((instance) => {
        // The GOT entries are the globals Emscripten made for the imports (its GOT proxy
        // hands out the same object per name).
        const got = WebAssembly.Module.imports(assets.module)
          .filter((entry) => entry.kind === 'global')
          .map((entry) => (imports[entry.module] as Record<string, unknown>)[entry.name])
          .filter((entry): entry is WebAssembly.Global => entry instanceof WebAssembly.Global);
        wasm = { instance, got };
        success(instance, assets.module);
      });
      return {};
    },
  };
  if (assets.snapshot !== undefined) {
    settings.noInitialRun = true;
    settings.INITIAL_MEMORY = assets.snapshot.length;
  }
  const module = (await withoutMessageChannel(() => create(settings))) as EmscriptenModuleLike;
  if (settings.exitCode !== undefined) throw new PyodideBootError(`the interpreter exited during startup (status ${String(settings.exitCode)})`);
  if (module.API.version !== PYODIDE_VERSION) throw new PyodideBootError(`pyodide version ${module.API.version} does not match ${PYODIDE_VERSION}`);
  module.locateFile = (path: string) => {
    throw new PyodideBootError(`no file ${path} can be loaded in the sandbox`);
  };
  let snapshotConfig: unknown;
  if (assets.snapshot !== undefined) {
    try {
      snapshotConfig = module.API.restoreSnapshot(assets.snapshot);
    } catch (error) {
      throw new PyodideBootError(`the snapshot does not fit this build: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const pyodide = module.API.finalizeBootstrap(snapshotConfig);
  await module.API.packageIndexReady;
  if (wasm === undefined) throw new PyodideBootError('the interpreter was not instantiated');
  return { pyodide, module, seal, wasm };
}
