// Bundles what Node runs from dist/: the sandbox child's kernel, the Node host API, the CLI
// and the server.
import { build } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildNodeKernel } from './bundle-node-kernel.mjs';

export async function buildNode(root) {
  await buildNodeKernel(root);
  await build({
    entryPoints: [join(root, 'src/cli/main.ts')],
    outfile: join(root, 'dist/node/cli.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['esbuild'],
    logLevel: 'warning',
  });
  await build({
    entryPoints: [join(root, 'src/host/node/index.ts')],
    outfile: join(root, 'dist/node/index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['esbuild'],
    logLevel: 'warning',
  });
  await build({
    entryPoints: [join(root, 'server/main.ts')],
    outfile: join(root, 'dist/server/main.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['esbuild'],
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildNode(fileURLToPath(new URL('..', import.meta.url)));
}
