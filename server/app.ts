// Builds the server (Fastify): structured logs (pino), /healthz, JSON errors, the page
// guard, and every service of server/services.ts, each in its own encapsulated scope (its
// content-type parsers and hooks stay its own).

import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { ServerConfig } from './config/schema.js';
import { foreignPageReason } from './pages/page-guard.js';
import { pageTokens, type PageTokens } from './pages/page-token.js';
import { securityHeaders } from './security-headers.js';
import type { ServiceContext } from './service.js';
import { SERVICES } from './services.js';
import { openAuditStore } from './audit/index.js';

export interface BuildOptions {
  /** The page-token keys (default: fresh for this process). */
  tokens?: PageTokens;
}

export async function buildApp(config: ServerConfig, options: BuildOptions = {}): Promise<{ app: FastifyInstance; tokens: PageTokens }> {
  const app = Fastify({
    logger: { level: config.log.level },
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    // Big enough for the largest page request; each service caps its own routes lower.
    bodyLimit: config.network.requestBytes,
  });
  const tokens = options.tokens ?? pageTokens();
  const audit = await openAuditStore(config);
  app.addHook('onClose', () => audit.close());
  const ownHosts = config.server.host === '0.0.0.0' || config.server.host === '::' ? [] : [`${config.server.host}:${config.server.port}`.toLowerCase()];
  const context: ServiceContext = {
    config,
    tokens,
    audit,
    pageOnly(request, reply, done) {
      const reason = foreignPageReason(request.headers, tokens, ownHosts);
      if (reason === undefined) return done();
      request.log.warn({ url: request.url, origin: request.headers.origin, reason }, 'refused a request that is not from this server\'s pages');
      void reply.code(403).send({ message: `only pages this server served may call it: ${reason}` });
    },
  };
  app.get('/healthz', async () => ({ status: 'ok', services: SERVICES.map((s) => s.name) }));
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.code(status).send({ message: error.message });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).headers({ ...securityHeaders(request.url), 'Content-Type': 'text/plain; charset=utf-8' });
    return reply.send('not found\n');
  });
  for (const service of SERVICES) {
    await app.register(async (scope) => service.register(scope, context), { name: service.name } as never);
  }
  return { app, tokens };
}
