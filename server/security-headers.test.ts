import { describe, expect, it } from 'vitest';
import { WORKER_POLICY, isEmbedPage, isSandboxWorkerScript, securityHeaders } from './security-headers.js';

describe('security headers', () => {
  it('gives every sandbox-side worker script the worker policy (no eval, no connections)', () => {
    for (const url of [
      '/assets/browser-kernel-CH0UwbW9.js',
      '/assets/python-browser-worker-Cm2ZtxhJ.js',
      '/assets/python-browser-snapshot-BhYe1fCH.js',
      '/workers/browser-kernel.ts?worker_file&type=module',
      '/workers/python-browser-worker.ts?worker_file&type=module',
      '/assets/wasi-browser-worker-D2x9Qf1a.js',
      '/workers/wasi-browser-worker.ts?worker_file&type=module',
    ]) {
      expect(isSandboxWorkerScript(url), url).toBe(true);
      expect(securityHeaders(url)['Content-Security-Policy']).toBe(WORKER_POLICY);
    }
    expect(WORKER_POLICY).toContain("connect-src 'none'");
    expect(WORKER_POLICY).not.toMatch(/(^|\s)'unsafe-eval'/);
  });

  it('keeps page policies for everything else, pyodide files included', () => {
    for (const url of ['/', '/assets/main-CItfKpj5.js', '/pyodide/pyodide.asm.mjs', '/assets/python-C-iWUOwh.js']) {
      expect(isSandboxWorkerScript(url), url).toBe(false);
      expect(securityHeaders(url)['Content-Security-Policy']).not.toContain("'unsafe-eval'");
    }
  });

  it('isolates every page but the embed', () => {
    expect(securityHeaders('/')['Cross-Origin-Embedder-Policy']).toBe('require-corp');
    expect(securityHeaders('/pyodide/pyodide.asm.wasm')['Cross-Origin-Resource-Policy']).toBe('same-origin');
    expect(isEmbedPage('/embed.html')).toBe(true);
    expect(securityHeaders('/embed.html')['Cross-Origin-Embedder-Policy']).toBeUndefined();
  });
});
