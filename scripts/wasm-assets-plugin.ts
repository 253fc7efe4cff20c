// Build-time (Node): a Vite plugin giving the page the tool modules' manifest
// (public/wasm/manifest.json) as the module `virtual:airlock-wasm`, so the first sandbox's
// downloads start without a round trip for manifest.json. In `vite build` each module is
// also emitted as a content-hashed asset (assets/<name>-<hash>.wasm), which the server
// serves as immutable: a warm load reads it from the HTTP cache (and V8's compiled code
// with it) without asking the server again; the built pages preload the shell's module.
// The dev server keeps public/wasm/.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HtmlTagDescriptor, Plugin } from 'vite';

const ID = 'virtual:airlock-wasm';
const RESOLVED = `\0${ID}`;

interface ManifestEntry {
  file: string;
}

export function wasmAssets(root: string): Plugin {
  let building = false;
  let base = '/';
  return {
    name: 'airlock-wasm-assets',
    configResolved(config) {
      building = config.command === 'build';
      base = config.base;
    },
    // Each page asks for the shell's module (the one the first prompt waits for) from its
    // <head>, before its script has loaded; the script's compileStreaming then takes that
    // response. The others are left to the script, at a lower priority: preloading them too
    // took the connections and the CPU the page's own scripts needed at that moment.
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        if (context.bundle === undefined) return undefined;
        const manifest = JSON.parse(readFileSync(join(root, 'public/wasm/manifest.json'), 'utf8')) as { modules: Array<ManifestEntry & { commands: string[] }> };
        const tags: HtmlTagDescriptor[] = [];
        for (const entry of manifest.modules.filter((module) => module.commands.includes('bash'))) {
          const asset = Object.values(context.bundle).find((output) => output.type === 'asset' && output.names.includes(entry.file));
          if (asset !== undefined) tags.push({ tag: 'link', injectTo: 'head', attrs: { rel: 'preload', href: `${base}${asset.fileName}`, as: 'fetch', crossorigin: 'anonymous', fetchpriority: 'high' } });
        }
        return tags;
      },
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
