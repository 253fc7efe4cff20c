// Serves the built web app (dist/web) with the security headers, from one directory only:
// paths are normalized and must stay inside it.

import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { securityHeaders } from './security-headers.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.zip': 'application/zip',
  '.whl': 'application/zip',
  '.tar': 'application/x-tar',
};

export function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const url = new URL(req.url ?? '/', 'http://localhost');
  let path = decodeURIComponent(url.pathname);
  if (path.endsWith('/')) path += 'index.html';
  const file = normalize(join(root, path));
  if (!file.startsWith(root + sep) && file !== root) return false;
  if (!existsSync(file) || !statSync(file).isFile()) return false;
  const headers = securityHeaders(url.pathname);
  const info = statSync(file);
  // A validator, so that a revalidated (no-cache) file is answered 304 and the browser keeps
  // its cached copy — for .wasm that also keeps V8's cached compilation (warm start).
  const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
  const cacheControl = url.pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ...headers, ETag: etag, 'Cache-Control': cacheControl });
    res.end();
    return true;
  }
  res.writeHead(200, {
    ...headers,
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Cache-Control': cacheControl,
    ETag: etag,
  });
  if (req.method === 'HEAD') res.end();
  else createReadStream(file).pipe(res);
  return true;
}
