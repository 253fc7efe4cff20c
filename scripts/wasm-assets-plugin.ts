// Build-time (Node): a Vite plugin giving the page the tool modules' manifest
// (public/wasm/manifest.json) as the module `virtual:airlock-wasm`, so the first sandbox's
// downloads start without a round trip for manifest.json. In `vite build` each module is
// also emitted as a content-hashed asset (assets/<name>-<hash>.wasm), which the server
// serves as immutable: a warm load reads it from the HTTP cache (and V8's compiled code
// with it) without asking the server again. The dev server keeps public/wasm/.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';

const ID = 'virtual:airlock-wasm';
const RESOLVED = `\0${ID}`;

interface ManifestEntry {
  file: string;
}

export function wasmAssets(root: string): Plugin {
  let building = false;
  return {
    name: 'airlock-wasm-assets',
    configResolved(config) {
      building = config.command === 'build';
    },
    resolveId(id) {
      return id === ID ? RESOLVED : undefined;
    },
    load(id) {
      if (id !== RESOLVED) return undefined;
      const directory = join(root, 'public/wasm');
      const manifestFile = join(directory, 'manifest.json');
      this.addWatchFile(manifestFile);
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { modules: ManifestEntry[] };
      const modules = manifest.modules.map((entry) => {
        const url = building
          ? `import.meta.ROLLUP_FILE_URL_${this.emitFile({ type: 'asset', name: entry.file, source: readFileSync(join(directory, entry.file)) })}`
          : `new URL(${JSON.stringify(`wasm/${entry.file}`)}, new URL(import.meta.env.BASE_URL, location.href)).href`;
        return `{ ...${JSON.stringify(entry)}, url: ${url} }`;
      });
      return `export default { modules: [${modules.join(', ')}] };\n`;
    },
  };
}
