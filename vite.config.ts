import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { securityHeaders } from './server/security-headers.js';
import { pyodideAssets } from './scripts/pyodide-assets-plugin.js';
import { wasmAssets } from './scripts/wasm-assets-plugin.js';

/** The dev server sends the same security headers as the production server. */
function airlockHeaders(): Plugin {
  return {
    name: 'airlock-security-headers',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        for (const [name, value] of Object.entries(securityHeaders(req.url ?? '/', { dev: true }))) res.setHeader(name, value);
        next();
      });
    },
  };
}

/**
 * The playground's entry (src/ui/main.tsx) starts the sandbox, then imports the page
 * (src/ui/page.tsx); the page's chunks are preloaded from the HTML so that they download
 * alongside the entry's instead of after it has run.
 */
function preloadPage(): Plugin {
  let base = '/';
  return {
    name: 'airlock-preload-page',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        const bundle = context.bundle;
        if (bundle === undefined || !context.filename.endsWith('index.html')) return undefined;
        const chunks = Object.values(bundle).filter((output) => output.type === 'chunk');
        const page = chunks.find((chunk) => chunk.facadeModuleId?.endsWith('/src/ui/page.tsx') === true);
        if (page === undefined) return undefined;
        const files = new Set<string>();
        const visit = (fileName: string): void => {
          if (files.has(fileName)) return;
          files.add(fileName);
          for (const imported of chunks.find((chunk) => chunk.fileName === fileName)?.imports ?? []) visit(imported);
        };
        visit(page.fileName);
        // What the HTML loads already (the entry and its imports) is not named twice.
        return [...files].filter((file) => !html.includes(`${base}${file}"`)).map((file) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: '', href: `${base}${file}` }, injectTo: 'head' as const }));
      },
    },
  };
}

export default defineConfig({
  publicDir: 'public',
  plugins: [airlockHeaders(), pyodideAssets(fileURLToPath(new URL('.', import.meta.url))), wasmAssets(fileURLToPath(new URL('.', import.meta.url))), preloadPage(), react()],
  worker: { format: 'es' },
  build: {
    outDir: 'dist/web',
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: { input: { main: 'index.html', embed: 'embed.html' } },
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
