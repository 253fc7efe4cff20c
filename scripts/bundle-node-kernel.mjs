// Bundles the Node sandbox child (workers/node-kernel.ts) and the CLI into dist/node/.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * `import text from './file.py?raw'` as Vite does it: the file's contents as a string (the
 * Python the kernel runs in its interpreters lives in .py files, src/kernel/python/py/).
 */
const rawText = {
  name: 'raw-text',
  setup(build) {
    build.onResolve({ filter: /\?raw$/ }, (args) => ({ path: resolve(dirname(args.importer), args.path.slice(0, -'?raw'.length)), namespace: 'raw-text' }));
    build.onLoad({ filter: /.*/, namespace: 'raw-text' }, (args) => ({ contents: readFileSync(args.path, 'utf8'), loader: 'text', watchFiles: [args.path] }));
  },
};

/** How every bundle the Node sandbox child loads is built. */
const nodeBundle = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  legalComments: 'none',
  plugins: [rawText],
};

export async function buildNodeKernel(root) {
  await build({
    entryPoints: [join(root, 'workers/node-kernel.ts')],
    outfile: join(root, 'dist/node/kernel.mjs'),
    ...nodeBundle,
  });
  // The Python worker, a foreign WASI program's worker (worker_threads of the sandbox child) and the snapshot builder,
  // loaded from beside kernel.mjs.
  await build({
    entryPoints: {
      'python-worker': join(root, 'workers/python-node-worker.ts'),
      'python-snapshot': join(root, 'workers/python-snapshot-builder.ts'),
      'wasi-worker': join(root, 'workers/wasi-node-worker.ts'),
    },
    outdir: join(root, 'dist/node'),
    outExtension: { '.js': '.mjs' },
    ...nodeBundle,
  });
}
