// The browser kernel worker's side of Python (docs/architecture.md §2): in mode 1 `python3` and
// `python` are external programs whose interpreter runs in a nested dedicated Worker. The
// kernel worker cannot fetch (connect-src 'none'), so the page hands it Pyodide's compiled
// module, the stdlib bytes and a snapshot over a MessagePort, asked for when Python is
// first needed (PageAssetsLink, which inline mode uses too); each Python worker gets them
// in its one start message.

import { PythonProgram, startWhenLoaded, type PythonWorkerFactory, type PythonWorkerHandle } from './python-program.js';
import type { ExternalProgram } from '../sys/external-program.js';
import type { WorkerConstructor } from '../abi/foreign/browser-launcher.js';
import type { BrowserPythonWorkerData, KernelToPagePython, PageToKernelPython, PythonAssetsMessage } from '../../protocol/python-assets.js';

/** The commands the interpreter answers to (pip and pip3 refuse, naming why). */
export const PYTHON_TOOLS = ['python3', 'python', 'pip', 'pip3'];


class PythonAssetsUnavailable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'PythonAssetsUnavailable';
  }
}

/** The kernel's end of the page's Python port: asks once, keeps what the page sends. */
export class PageAssetsLink {
  private port: MessagePort | undefined;
  private assets: Promise<PythonAssetsMessage> | undefined;
  private resolveAssets: (assets: PythonAssetsMessage) => void = () => undefined;
  private rejectAssets: (error: Error) => void = () => undefined;

  attach(port: MessagePort): void {
    if (this.port !== undefined) return;
    this.port = port;
    port.onmessage = (event: MessageEvent) => this.receive(event.data as PageToKernelPython);
    if (this.assets !== undefined) this.ask();
  }

  /** The assets; the first call asks the page for them. */
  get(): Promise<PythonAssetsMessage> {
    if (this.assets === undefined) {
      this.assets = new Promise<PythonAssetsMessage>((resolve, reject) => {
        this.resolveAssets = resolve;
        this.rejectAssets = reject;
      });
      if (this.port !== undefined) this.ask();
    }
    return this.assets;
  }

  private ask(): void {
    const request: KernelToPagePython = { op: 'need' };
    this.port?.postMessage(request);
  }

  private receive(message: PageToKernelPython): void {
    if (message.op === 'assets') {
      this.resolveAssets(message);
    } else if (message.op === 'unavailable') {
      this.rejectAssets(new PythonAssetsUnavailable(message.reason));
      // The next python3 asks again (the page may have recovered, e.g. a network blip).
      this.assets = undefined;
    }
  }
}

/** Starts Python workers from `script` (the bundled python-browser-worker). */
export function browserPythonWorkerFactory(NestedWorker: WorkerConstructor, script: string, assets: () => Promise<PythonAssetsMessage>, makeSnapshot = false): PythonWorkerFactory {
  return (init): PythonWorkerHandle =>
    startWhenLoaded(
      assets(),
      (loaded, fail) => {
        const data: BrowserPythonWorkerData = {
          channel: init.channel, interrupt: init.interrupt, module: loaded.module, stdlib: loaded.stdlib,
          snapshot: loaded.snapshot, script: loaded.script, makeSnapshot,
        };
        const worker = new NestedWorker(script, { type: 'module', name: 'airlock-python' });
        worker.addEventListener('error', (event) => fail(`the python worker failed: ${event.message || 'it could not be loaded'}`));
        worker.postMessage(data);
        return worker;
      },
      (message) => `python is not available: ${message}`,
    );
}

/** `python3` and `python` (and pip, which refuses) for KernelService's externals hook. */
export function browserPythonPrograms(NestedWorker: WorkerConstructor, script: string, assets: PageAssetsLink): Array<{ tools: string[]; program: ExternalProgram }> {
  return [{ tools: PYTHON_TOOLS, program: new PythonProgram(browserPythonWorkerFactory(NestedWorker, script, () => assets.get())) }];
}
