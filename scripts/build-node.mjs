// Bundles what Node runs from dist/: the sandbox child's kernel, the Node host API, the CLI
// and the server.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
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

/**
 * The type declarations of the package's exports (package.json "exports" → "types"), emitted
 * by TypeScript itself with the project's compiler options into dist/types/ (the sources'
 * layout: dist/types/src/playwright/index.d.ts). esbuild strips types; this puts them back.
 */
function declarations(root, entries) {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (config === undefined) throw new Error('build-node: tsconfig.json could not be read');
  const outDir = join(root, 'dist/types');
  rmSync(outDir, { recursive: true, force: true });
  const options = { ...config.options, noEmit: false, declaration: true, emitDeclarationOnly: true, outDir, rootDir: root };
  const program = ts.createProgram(entries.map((entry) => join(root, entry)), options);
  const { emitSkipped, diagnostics } = program.emit();
  if (emitSkipped || diagnostics.length > 0) {
    const text = ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' });
    throw new Error(`build-node: the declarations of ${entries.join(', ')} were not emitted\n${text}`);
  }
}

export async function buildNode(root) {
  await buildNodeKernel(root);
  await bundle(root, 'src/cli/main.ts', 'dist/node/cli.mjs');
  await bundle(root, 'src/host/node/index.ts', 'dist/node/index.mjs');
  // airlock/playwright: beside index.mjs (the Node host finds its kernel from the package
  // root); @playwright/test is the user's own.
  await bundle(root, 'src/playwright/index.ts', 'dist/node/playwright.mjs', ['@playwright/test', 'playwright', 'playwright-core']);
  await bundle(root, 'server/main.ts', 'dist/server/main.mjs');
  declarations(root, ['src/host/node/index.ts', 'src/playwright/index.ts']);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildNode(fileURLToPath(new URL('..', import.meta.url)));
}
