// The Airlock companion server: serves the playground (dist/web) on 127.0.0.1 and, as they
// land, the network gateway, extension host, audit sink and gate runner.
//   node dist/server/main.mjs [--port N] [--web DIR] [--net-allow host,*.host,...]

import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { serveStatic } from './static-files.js';
import { securityHeaders } from './security-headers.js';
import { handleHop, type GatewayOptions } from './gateway/hop.js';
import { GATEWAY_PATH } from '../src/protocol/gateway.js';
import { DEFAULT_LIMITS } from '../src/protocol/limits.js';

export interface ServerOptions {
  port: number;
  webRoot: string;
  /** Hosts the gateway may reach for browser sandboxes (default none). */
  netAllow?: string[];
}

export function startServer(options: ServerOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const gateway: GatewayOptions = { policy: { allowedHosts: options.netAllow ?? [] }, responseBytes: DEFAULT_LIMITS.networkResponseBytes };
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === GATEWAY_PATH) {
      void handleHop(req, res, gateway);
      return;
    }
    if (serveStatic(options.webRoot, req, res)) return;
    res.writeHead(404, { ...securityHeaders(req.url ?? '/'), 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('not found\n');
  });
  return new Promise((resolveStart, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : options.port;
      resolveStart({
        url: `http://127.0.0.1:${port}/`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

if (process.argv[1] !== undefined && /server[\\/]main\.(m?js|ts)$/.test(process.argv[1])) {
  const port = Number(argument('port') ?? process.env.PORT ?? 4173);
  const webRoot = resolve(argument('web') ?? 'dist/web');
  const netAllow = (argument('net-allow') ?? process.env.AIRLOCK_NET_ALLOW ?? '').split(',').filter((h) => h.length > 0);
  startServer({ port, webRoot, netAllow }).then(
    ({ url }) => console.log(`Airlock is running at ${url}`),
    (error: Error) => {
      console.error(`airlock server: ${error.message}`);
      process.exitCode = 1;
    },
  );
}
