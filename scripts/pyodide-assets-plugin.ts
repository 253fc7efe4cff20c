// Build-time (Node): a Vite plugin that serves Pyodide's runtime files from the pinned npm
// package under `<base>pyodide/` — by the dev and preview servers straight from
// node_modules, and by `vite build` as files emitted into dist/web/pyodide/ (which the Node
// server then serves like any other file). They are never committed.
//
// It also defines __AIRLOCK_PYODIDE_KEY__, the key of the page's memory-snapshot cache
// (src/host/python/browser-snapshot-cache.ts): a hash of Pyodide's package.json and of the files that
// decide what a snapshot holds, so another Pyodide build or snapshot recipe never reads an
// old entry.

import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'vite';

/** The files a browser Python needs (pyodide-lock.json for package tooling later). */
export const PYODIDE_FILES = ['pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'] as const;

const TYPES: Record<string, string> = {
  mjs: 'text/javascript; charset=utf-8',
  wasm: 'application/wasm',
  zip: 'application/zip',
  json: 'application/json',
};

/** Where the pinned pyodide package is installed. */
export function pyodidePackageDirectory(root: string): string {
  return dirname(createRequire(join(root, 'package.json')).resolve('pyodide/package.json'));
}

/** The snapshot cache key for this checkout: Pyodide's build and our snapshot recipe. */
export function pyodideCacheKey(root: string): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(pyodidePackageDirectory(root), 'package.json')));
  // The Python run before the snapshot is taken is part of the recipe (src/kernel/python/py/).
  const python = readdirSync(join(root, 'src/kernel/python/py')).filter((name) => name.endsWith('.py')).sort().map((name) => `src/kernel/python/py/${name}`);
  for (const file of ['src/kernel/python/pyodide-boot.ts', 'src/kernel/python/worker-runtime.ts', ...python]) hash.update(readFileSync(join(root, file)));
  return hash.digest('hex').slice(0, 32);
}

export function pyodideAssets(root: string): Plugin {
  const directory = pyodidePackageDirectory(root);
  let base = '/';
  const serve = (url: string | undefined, res: import('node:http').ServerResponse): boolean => {
    const path = (url ?? '').split('?')[0] ?? '';
    const prefix = `${base}pyodide/`;
    if (!path.startsWith(prefix)) return false;
    const name = path.slice(prefix.length);
    if (!(PYODIDE_FILES as readonly string[]).includes(name)) return false;
    const file = join(directory, name);
    res.setHeader('Content-Type', TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream');
    res.setHeader('Content-Length', statSync(file).size);
    res.setHeader('Cache-Control', 'no-cache');
    createReadStream(file).pipe(res);
    return true;
  };
  return {
    name: 'airlock-pyodide-assets',
    config() {
      return { define: { __AIRLOCK_PYODIDE_KEY__: JSON.stringify(pyodideCacheKey(root)) } };
    },
    configResolved(config) {
      base = config.base;
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (!serve(req.url, res)) next();
      });
    },
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        if (!serve(req.url, res)) next();
      });
    },
    generateBundle() {
      for (const name of PYODIDE_FILES) this.emitFile({ type: 'asset', fileName: `pyodide/${name}`, source: readFileSync(join(directory, name)) });
    },
  };
}
