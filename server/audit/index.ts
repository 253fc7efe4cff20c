// The audit service: the sink of browser sandboxes' events and the query API
// (src/protocol/audit/api.ts), over the server's audit store.

import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { AUDIT_BATCH_MAX, AUDIT_EVENTS_PATH, AUDIT_POST_MAX_BYTES, AUDIT_POST_PATH, AUDIT_QUERY_DEFAULT, AUDIT_QUERY_MAX } from '../../src/protocol/audit/api.js';
import { parseSince, type EventFilter } from '../../src/host/audit/filter.js';
import { parseSignerKey } from '../../src/host/audit/signed-note.js';
import type { ServerConfig } from '../config/schema.js';
import type { ServerService, ServiceContext } from '../service.js';
import { AuditRefusal, ServerAuditStore } from './store.js';

/** Opens the store the configuration asks for (the file, its key). */
export async function openAuditStore(config: ServerConfig): Promise<ServerAuditStore> {
  const { file, maxBytes, keyFile, memoryEvents } = config.audit;
  const signer = keyFile === undefined ? undefined : parseSignerKey(await readFile(keyFile, 'utf8'));
  return ServerAuditStore.open({ file, maxBytes, signer, memoryEvents });
}

class QueryError extends Error {
  readonly statusCode = 400;
}

function one(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new QueryError(`${name} may be given once`);
  return value;
}

function filterOf(query: Record<string, unknown>): EventFilter {
  const filter: EventFilter = {};
  const types = query.type;
  if (types !== undefined) filter.types = Array.isArray(types) ? types.map(String) : [String(types)];
  const session = one(query, 'session');
  if (session !== undefined) filter.sessionId = session;
  for (const name of ['since', 'until'] as const) {
    const text = one(query, name);
    if (text === undefined) continue;
    const time = parseSince(text);
    if (time === undefined) throw new QueryError(`${name} must be an ISO time or a duration like 10m`);
    filter[name] = time;
  }
  return filter;
}

function registerRoutes(app: FastifyInstance, context: ServiceContext): void {
  app.post(AUDIT_POST_PATH, { onRequest: context.pageOnly, bodyLimit: AUDIT_POST_MAX_BYTES }, async (request) => {
    const body = request.body as { events?: unknown } | undefined;
    if (typeof body !== 'object' || body === null || !Array.isArray(body.events)) throw new AuditRefusal('the body must be JSON {"events": [...]}');
    if (body.events.length > AUDIT_BATCH_MAX) throw new AuditRefusal(`a batch holds at most ${AUDIT_BATCH_MAX} events (got ${body.events.length})`);
    return context.audit.ingest(body.events);
  });
  app.get(AUDIT_EVENTS_PATH, { onRequest: context.pageOnly }, async (request) => {
    const query = request.query as Record<string, unknown>;
    const afterText = one(query, 'after');
    const limitText = one(query, 'limit');
    const after = afterText === undefined ? -1 : Number(afterText);
    const limit = limitText === undefined ? AUDIT_QUERY_DEFAULT : Number(limitText);
    if (!Number.isSafeInteger(after) || after < -1) throw new QueryError('after must be an event position (n) from an earlier page');
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > AUDIT_QUERY_MAX) throw new QueryError(`limit must be 1…${AUDIT_QUERY_MAX}`);
    return context.audit.query(filterOf(query), after, limit);
  });
}

export const auditService: ServerService = {
  name: 'audit',
  register: registerRoutes,
};
