// The headers that make the browser part of the sandbox safe (docs/architecture.md §1):
// - every page but the docs embed is cross-origin isolated (COOP/COEP), so SharedArrayBuffer
//   exists where it can be used (nothing requires it);
// - pages may run wasm but not eval ('wasm-unsafe-eval', no 'unsafe-eval');
// - the sandbox workers' scripts (kernel, Python, snapshot builder) get a policy with
//   connect-src 'none': nothing in those workers can reach the network, whatever they run.

const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "frame-ancestors *",
].join('; ');

const DEV_PAGE_POLICY = PAGE_POLICY.replace("connect-src 'self'", "connect-src 'self' ws: wss:").replace("script-src 'self'", "script-src 'self' 'unsafe-inline'");

export const WORKER_POLICY = ["default-src 'none'", "script-src 'self' 'wasm-unsafe-eval'", "connect-src 'none'"].join('; ');

/**
 * Whether a URL is the script of a sandbox-side worker: the kernel worker, a Python worker,
 * the Python snapshot builder or a foreign WASI program's worker (built as
 * assets/<name>-<hash>.js).
 */
export function isSandboxWorkerScript(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return /\/(browser-kernel|python-browser-worker|python-browser-snapshot|wasi-browser-worker)(-[\w-]+)?\.(js|ts)$/.test(path);
}

/**
 * Whether a URL is the docs embed (embed.html). It is served without COOP/COEP: it runs in
 * docs pages that are not cross-origin isolated and needs no SharedArrayBuffer, and a
 * cross-origin-isolated embedder may still frame it (CORP cross-origin).
 */
export function isEmbedPage(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return path === '/embed.html' || path === '/embed';
}

export function securityHeaders(url: string, options: { dev?: boolean } = {}): Record<string, string> {
  const embed = isEmbedPage(url);
  const headers: Record<string, string> = {
    ...(embed ? {} : { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }),
    'Cross-Origin-Resource-Policy': embed ? 'cross-origin' : 'same-origin',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
  headers['Content-Security-Policy'] = isSandboxWorkerScript(url) ? WORKER_POLICY : options.dev ? DEV_PAGE_POLICY : PAGE_POLICY;
  return headers;
}
