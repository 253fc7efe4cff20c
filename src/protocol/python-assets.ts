// The messages that carry Python's runtime in the browser (docs/python.md, "Browser"):
// - page -> kernel worker: one MessagePort (`airlockPythonPort`), outside the comlink
//   channel, on which the kernel asks for the assets when it first needs Python and the
//   page answers with the compiled Pyodide module, the stdlib and a cached snapshot;
// - kernel worker -> Python worker: everything that worker needs, once, at its start;
// - page -> snapshot builder worker and back: the assets, then the snapshot bytes.
// The page trusts nothing that comes up from a kernel worker except the `need` request.

/** What the page fetched and compiled (the kernel and Python workers cannot fetch). */
export interface PythonAssetsMessage {
  op: 'assets';
  module: WebAssembly.Module;
  stdlib: Uint8Array;
  /** A memory snapshot made by the page's builder worker, if it has one. */
  snapshot?: Uint8Array;
  /** The URL of pyodide.asm.mjs (a same-origin script the Python worker imports). */
  script: string;
}

/** Python cannot be had (the download failed): every python3 says why. */
export interface PythonUnavailableMessage {
  op: 'unavailable';
  reason: string;
}

export type PageToKernelPython = PythonAssetsMessage | PythonUnavailableMessage;
export type KernelToPagePython = { op: 'need' };

/** Posted by the page on the kernel worker itself, to hand over the port. */
export interface PythonPortMessage {
  airlockPythonPort: MessagePort;
}

export function isPythonPortMessage(data: unknown): data is PythonPortMessage {
  return typeof data === 'object' && data !== null && (data as { airlockPythonPort?: unknown }).airlockPythonPort instanceof MessagePort;
}

/** What a Python worker gets in its one message from the kernel worker. */
export interface BrowserPythonWorkerData {
  channel: SharedArrayBuffer;
  interrupt: SharedArrayBuffer;
  module: WebAssembly.Module;
  stdlib: Uint8Array;
  snapshot?: Uint8Array;
  script: string;
  makeSnapshot: boolean;
}

/** Page -> builder: make a snapshot from these assets. Builder -> page: its answer. */
export type BuilderRequest = Omit<PythonAssetsMessage, 'snapshot'>;
export type BuilderAnswer = { op: 'snapshot'; snapshot: Uint8Array } | { op: 'failed'; reason: string };
