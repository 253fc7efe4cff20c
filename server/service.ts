// What a server service is: a folder under server/ with one registration function, listed
// once in server/services.ts. A service adds its routes to the Fastify app it is given; a
// route that pages call puts `onRequest: context.pageOnly` in its options, so only pages
// this server served can use it (ARCHITECTURE.md §7).

import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { ServerConfig } from './config/schema.js';
import type { PageTokens } from './pages/page-token.js';
import type { ServerAuditStore } from './audit/store.js';

export interface ServiceContext {
  config: ServerConfig;
  /** Mints and checks the per-page tokens. */
  tokens: PageTokens;
  /** Refuses (403, JSON {message}) a request that is not from one of this server's pages. */
  pageOnly: onRequestHookHandler;
  /** The audit sink: `audit.record({ type, ...fields }, { sessionId })` for the server's own events. */
  audit: ServerAuditStore;
}

export interface ServerService {
  name: string;
  register(app: FastifyInstance, context: ServiceContext): void | Promise<void>;
}
