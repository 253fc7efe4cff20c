// For the server's tests: a scratch folder holding a one-line web app, and a configuration
// that serves it on loopback (127.0.0.1, port 0) with the log silent unless told otherwise.

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerConfig } from './config/schema.js';
import { serverConfig } from './main.js';

/** A fresh folder (under the system's temp dir, named from `prefix`) with an index.html. */
export async function scratchWebRoot(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  return dir;
}

/** serverConfig for a test server of `web`: loopback, any free port, silent log, then `patch`. */
export function testServerConfig(web: string, patch: Parameters<typeof serverConfig>[0] = {}): ServerConfig {
  return serverConfig({ ...patch, server: { port: 0, web, ...patch.server }, log: { level: 'silent', ...patch.log } });
}
