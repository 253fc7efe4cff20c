// The third layer under Python's wall (issue 20): once our setup code has run, Pyodide's
// API object, its internal API and Emscripten's Module lose every entry point that loads
// code or packages, opens sockets, mounts host filesystems or runs Python outside the
// driver. Python cannot reach these objects (the prelude drops every JS proxy and the
// interpreter's seal stops any JS object crossing, interpreter-seal.ts); this is for the
// case where some JS of the realm is turned against us anyway. Several of them import Node
// builtins (initializeNodeSockFS imports node:net, node:tls and node:stream) or any URL
// (loadScript), which a Node realm's permission model does not stop.

/** A neutered Pyodide or Emscripten entry point was called. */
export class PyodideEntryRefused extends Error {
  constructor(name: string) {
    super(`${name} is not available in the sandbox`);
    this.name = 'PyodideEntryRefused';
  }
}

/** Pyodide's public API object (what loadPyodide returns). */
const PUBLIC_ENTRIES = [
  'loadPackage', 'loadPackagesFromImports', 'mountNativeFS', 'mountNodeFS', 'pyimport', 'registerComlink',
  'registerJsModule', 'unregisterJsModule', 'runPython', 'runPythonAsync', 'setDebug', 'setStderr', 'setStdin',
  'setStdout', 'toPy', 'unpackArchive', 'useNodeSockFS', 'makeMemorySnapshot',
];

/** Pyodide's internal API (Module.API). */
const INTERNAL_ENTRIES = [
  'initializeNodeSockFS', 'install', 'loadBinaryFile', 'loadDynlib', 'rawRun', 'runPythonInternal', 'restoreState',
  'saveState', 'finalizeBootstrap', 'restoreSnapshot', 'makeSnapshot', 'initializeStreams', 'scheduleCallback',
];

/** Emscripten's Module: dynamic linking, fetching, preloading. */
const MODULE_ENTRIES = [
  'loadDynamicLibrary', 'loadWebAssemblyModule', 'dlopenInternal', 'loadDylibs', 'registerWasmPlugin', 'asyncLoad',
  'FS_createLazyFile', 'FS_createPreloadedFile', 'FS_preloadFile', 'getUserMedia', 'instantiateWasm', 'addFunction',
  'convertJsFunctionToWasm',
];

/** Properties that only hand out the objects above. */
const HIDDEN = ['_api', '_module'];

function refuseAll(target: object, names: readonly string[], label: string): void {
  const record = target as Record<string, unknown>;
  for (const name of names) {
    const refuse = (): never => {
      throw new PyodideEntryRefused(`${label}.${name}`);
    };
    try {
      Object.defineProperty(record, name, { value: refuse, writable: false, configurable: false });
    } catch {
      // A non-configurable original: overwrite if writable; the seal is the wall anyway.
      record[name] = refuse;
    }
  }
}

/** Neuters the entry points of a booted interpreter's API, internal API and Module. */
export function neuterPyodide(booted: { pyodide: object; module: { API: object } }): void {
  refuseAll(booted.pyodide, PUBLIC_ENTRIES, 'pyodide');
  refuseAll(booted.module.API, INTERNAL_ENTRIES, 'pyodide API');
  refuseAll(booted.module, MODULE_ENTRIES, 'Module');
  for (const target of [booted.pyodide, booted.module.API]) {
    for (const name of HIDDEN) {
      try {
        Object.defineProperty(target, name, { value: undefined, writable: false, configurable: false });
      } catch {
        // Not configurable: left as it is.
      }
    }
  }
}
