// Bundles the Node sandbox child (workers/node-kernel.ts) and the CLI into dist/node/.
import { build } from 'esbuild';
import { join } from 'node:path';

export async function buildNodeKernel(root) {
  await build({
    entryPoints: [join(root, 'workers/node-kernel.ts')],
    outfile: join(root, 'dist/node/kernel.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    legalComments: 'none',
  });
  // The Python worker (a worker_thread of the sandbox child) and the snapshot builder,
  // loaded from beside kernel.mjs.
  await build({
    entryPoints: { 'python-worker': join(root, 'workers/python-node-worker.ts'), 'python-snapshot': join(root, 'workers/python-snapshot-builder.ts') },
    outdir: join(root, 'dist/node'),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    legalComments: 'none',
  });
}
