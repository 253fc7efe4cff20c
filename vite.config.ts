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

export default defineConfig({
  publicDir: 'public',
  plugins: [airlockHeaders(), pyodideAssets(fileURLToPath(new URL('.', import.meta.url))), wasmAssets(fileURLToPath(new URL('.', import.meta.url))), react()],
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
