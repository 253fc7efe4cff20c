// The page's side of Python in the browser (docs/python.md, "Browser"). The sandbox realms
// cannot fetch or store anything, so the page does it for them: on a kernel worker's first
// `need` it fetches and compiles pyodide.asm.wasm (compileStreaming), fetches the stdlib
// and reads the cached memory snapshot (or has one made), and hands all of it down that
// worker's Python port.
//
// The snapshot is made by a builder worker the page starts for that purpose alone
// (workers/python-browser-snapshot.ts): it runs no user code, so a sandbox can never put
// its own interpreter state into the snapshot that later sessions boot from. The page
// accepts snapshot bytes from nothing else.

import type { BuilderAnswer, BuilderRequest, KernelToPagePython, PageToKernelPython, PythonAssetsMessage } from '../../protocol/python-assets.js';
import { readCachedSnapshot, writeCachedSnapshot } from './browser-snapshot-cache.js';

declare const __AIRLOCK_PYODIDE_KEY__: string | undefined;

/** Larger than any snapshot Pyodide makes (≈30 MiB); a bigger answer is refused. */
const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;
/** A builder that has not answered by then is given up: interpreters boot cold instead. */
const BUILDER_TIMEOUT_MS = 90_000;

/** Where loading Python stands, for a loading bar (bytes of the download done and total). */
export interface PythonLoadProgress {
  stage: 'download' | 'snapshot' | 'ready' | 'failed';
  loaded: number;
  total: number;
}

export interface BrowserPythonOptions {
  /** Where pyodide.asm.mjs, pyodide.asm.wasm and python_stdlib.zip are served. */
  baseUrl: string;
  /** Progress of loading Python: the download of Pyodide's files, then the snapshot. */
  onProgress?: (progress: PythonLoadProgress) => void;
  /** Starts the snapshot builder worker; without it interpreters always boot cold. */
  createSnapshotBuilder?: () => Worker;
}

class PythonAssetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PythonAssetError';
  }
}

function cacheKey(): string {
  return typeof __AIRLOCK_PYODIDE_KEY__ === 'string' ? __AIRLOCK_PYODIDE_KEY__ : 'unversioned';
}

async function fetchOk(url: URL): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new PythonAssetError(`cannot load ${url.pathname}: HTTP ${response.status}`);
  return response;
}

/** `response` with its body counted into `progress` as it streams. */
function counted(response: Response, progress: (bytes: number) => void): Response {
  if (response.body === null) return response;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      progress(chunk.byteLength);
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), { status: response.status, headers: response.headers });
}

/** Pyodide's files for one page, fetched once and shared by all its sandboxes. */
export class BrowserPython {
  private assets: Promise<PythonAssetsMessage> | undefined;
  /** Download progress in bytes, for `onProgress`. */
  private loaded = 0;
  private total = 0;

  constructor(private readonly options: BrowserPythonOptions) {}

  /** Gives a new kernel worker its Python port (outside its comlink channel). */
  attach(worker: Worker): void {
    const channel = new MessageChannel();
    const port = channel.port1;
    let served = false;
    port.onmessage = (event: MessageEvent) => {
      // The kernel worker is untrusted: it may only ask, once (again after a failure).
      if ((event.data as KernelToPagePython | undefined)?.op !== 'need' || served) return;
      served = true;
      this.load().then(
        (assets) => port.postMessage(assets satisfies PageToKernelPython),
        (error: unknown) => {
          served = false;
          this.assets = undefined;
          port.postMessage({ op: 'unavailable', reason: error instanceof Error ? error.message : String(error) } satisfies PageToKernelPython);
        },
      );
    };
    worker.postMessage({ airlockPythonPort: channel.port2 }, [channel.port2]);
  }

  load(): Promise<PythonAssetsMessage> {
    if (this.assets === undefined) {
      this.assets = this.fetchAll();
      this.assets.then(
        () => this.report('ready'),
        () => this.report('failed'),
      );
    }
    return this.assets;
  }

  private report(stage: PythonLoadProgress['stage']): void {
    this.options.onProgress?.({ stage, loaded: Math.min(this.loaded, this.total), total: this.total });
  }

  private async fetchAll(): Promise<PythonAssetsMessage> {
    const base = this.options.baseUrl;
    const script = new URL('pyodide.asm.mjs', base).href;
    const [wasm, stdlib, cached] = await Promise.all([
      fetchOk(new URL('pyodide.asm.wasm', base)),
      fetchOk(new URL('python_stdlib.zip', base)),
      readCachedSnapshot(cacheKey()),
    ]);
    this.total = Number(wasm.headers.get('Content-Length') ?? 0) + Number(stdlib.headers.get('Content-Length') ?? 0);
    this.loaded = 0;
    this.report('download');
    const progress = (bytes: number): void => {
      this.loaded += bytes;
      this.report('download');
    };
    const [module, stdlibBytes] = await Promise.all([
      WebAssembly.compileStreaming(counted(wasm, progress)),
      counted(stdlib, progress).arrayBuffer(),
    ]);
    const assets: PythonAssetsMessage = { op: 'assets', module, stdlib: new Uint8Array(stdlibBytes), script };
    // Without a cached snapshot the first interpreter waits for the builder: one cold boot
    // then a restore is quicker than several cold boots side by side (measured: ≈10 s
    // against ≈20 s for the first python3 of a page at load 7 on 2 cores).
    if (cached === undefined) this.report('snapshot');
    const snapshot = cached ?? (await this.buildSnapshot(assets));
    return snapshot === undefined ? assets : { ...assets, snapshot };
  }

  /** Makes and caches the snapshot; undefined when it cannot (interpreters then boot cold). */
  private buildSnapshot(assets: PythonAssetsMessage): Promise<Uint8Array | undefined> {
    const create = this.options.createSnapshotBuilder;
    // The builder needs SharedArrayBuffer; a page without it (the embed, where Python runs
    // inline) can still use a snapshot another page of the origin cached.
    if (create === undefined || !crossOriginIsolated) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      let builder: Worker;
      try {
        builder = create();
      } catch {
        resolve(undefined);
        return;
      }
      const finish = (snapshot: Uint8Array | undefined): void => {
        clearTimeout(timer);
        builder.terminate();
        resolve(snapshot);
        if (snapshot !== undefined) void writeCachedSnapshot(cacheKey(), snapshot);
      };
      const timer = setTimeout(() => finish(undefined), BUILDER_TIMEOUT_MS);
      builder.addEventListener('error', () => finish(undefined));
      builder.addEventListener('message', (event: MessageEvent) => {
        const answer = event.data as BuilderAnswer | undefined;
        const bytes = answer?.op === 'snapshot' && answer.snapshot instanceof Uint8Array ? answer.snapshot : undefined;
        finish(bytes !== undefined && bytes.length > 0 && bytes.length <= MAX_SNAPSHOT_BYTES ? bytes : undefined);
      });
      const request: BuilderRequest = { op: 'assets', module: assets.module, stdlib: assets.stdlib, script: assets.script };
      builder.postMessage(request);
    });
  }
}
