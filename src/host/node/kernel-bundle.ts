// Where the Node sandbox child's code is: dist/node/kernel.mjs, built by esbuild from
// workers/node-kernel.ts. In a source checkout it is (re)built here when missing or older
// than its sources, so tests and the CLI never run a stale kernel.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest directory above this file holding package.json. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('airlock: cannot find the package root');
    dir = parent;
  }
  return dir;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    // .py: the Python the kernel bundles as text (src/kernel/python/py/).
    else if (entry.name.endsWith('.ts') || entry.name.endsWith('.py')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

let checked: string | undefined;

export async function kernelBundlePath(): Promise<string> {
  if (checked !== undefined) return checked;
  const root = packageRoot();
  const bundle = join(root, 'dist/node/kernel.mjs');
  const entry = join(root, 'workers/node-kernel.ts');
  if (existsSync(entry)) {
    const sources = Math.max(newestMtime(join(root, 'src/kernel')), newestMtime(join(root, 'src/protocol')), newestMtime(join(root, 'workers')));
    if (!existsSync(bundle) || statSync(bundle).mtimeMs < sources) {
      const { buildNodeKernel } = await import('../../../scripts/bundle-node-kernel.mjs');
      await buildNodeKernel(root);
    }
  }
  if (!existsSync(bundle)) throw new Error(`airlock: the sandbox kernel bundle is missing: ${bundle}`);
  checked = bundle;
  return bundle;
}
