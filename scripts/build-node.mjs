// Bundles what Node runs from dist/: the sandbox child's kernel, the Node host API, the CLI
// and the server.
import { build } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildNodeKernel } from './bundle-node-kernel.mjs';

// Bundled CommonJS packages (undici, fastify, …) require Node's builtins; an ESM bundle has
// no `require` of its own, so give it one.
const banner = { js: "import { createRequire as __airlockCreateRequire } from 'node:module'; const require = __airlockCreateRequire(import.meta.url);" };

/** One Node bundle: an entry point of the repository to an .mjs file under dist/. */
function bundle(root, entry, outfile, external = []) {
  return build({
    entryPoints: [join(root, entry)],
    outfile: join(root, outfile),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['esbuild', ...external],
    banner,
    logLevel: 'warning',
  });
}

export async function buildNode(root) {
  await buildNodeKernel(root);
  await bundle(root, 'src/cli/main.ts', 'dist/node/cli.mjs');
  await bundle(root, 'src/host/node/index.ts', 'dist/node/index.mjs');
  // airlock/playwright: beside index.mjs (the Node host finds its kernel from the package
  // root); @playwright/test is the user's own.
  await bundle(root, 'src/playwright/index.ts', 'dist/node/playwright.mjs', ['@playwright/test', 'playwright', 'playwright-core']);
  await bundle(root, 'server/main.ts', 'dist/server/main.mjs');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildNode(fileURLToPath(new URL('..', import.meta.url)));
}
