// Serves the built web app (dist/web) with the security headers, from one directory only:
// paths are normalized and must stay inside it. Every HTML page gets its own page token
// (a <meta> tag added to its <head>), so HTML is never cached.

import { createReadStream, existsSync, readFileSync, statSync, type ReadStream } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { PAGE_TOKEN_META } from '../../src/protocol/server.js';
import { securityHeaders } from '../security-headers.js';

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

export interface StaticAnswer {
  status: number;
  headers: Record<string, string | number>;
  body?: string | ReadStream;
}

/** Adds the page token to an HTML document's head. */
export function withPageToken(html: string, token: string): string {
  const meta = `<meta name="${PAGE_TOKEN_META}" content="${token}">`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head === null) return meta + html;
  const at = head.index + head[0].length;
  return html.slice(0, at) + meta + html.slice(at);
}

/** The answer for GET/HEAD `rawUrl` from `root`, or undefined when no such file is there. */
export function staticAnswer(root: string, method: string, rawUrl: string, ifNoneMatch: string | undefined, mintToken: () => string): StaticAnswer | undefined {
  const url = new URL(rawUrl, 'http://localhost');
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (path.endsWith('/')) path += 'index.html';
  const file = normalize(join(root, path));
  if (!file.startsWith(root + sep) && file !== root) return undefined;
  if (!existsSync(file) || !statSync(file).isFile()) return undefined;
  const headers: Record<string, string | number> = { ...securityHeaders(url.pathname), 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' };
  if (extname(file) === '.html') {
    const html = withPageToken(readFileSync(file, 'utf8'), mintToken());
    return { status: 200, headers: { ...headers, 'Cache-Control': 'no-store' }, body: method === 'HEAD' ? undefined : html };
  }
  const info = statSync(file);
  // A validator, so that a revalidated (no-cache) file is answered 304 and the browser keeps
  // its cached copy — for .wasm that also keeps V8's cached compilation (warm start).
  const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
  const cacheControl = url.pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
  if (ifNoneMatch === etag) return { status: 304, headers: { ...headers, ETag: etag, 'Cache-Control': cacheControl } };
  return {
    status: 200,
    headers: { ...headers, 'Content-Length': info.size, 'Cache-Control': cacheControl, ETag: etag },
    body: method === 'HEAD' ? undefined : createReadStream(file),
  };
}
