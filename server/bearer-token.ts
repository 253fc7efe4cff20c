// The bearer token of a route for programs, not pages (/mcp, /api/agents): read at start from
// an environment variable or a file named in the configuration, at least 16 characters, and
// compared in constant time. Without one, the service's routes are off.

import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyRequest } from 'fastify';

export const MIN_TOKEN_LENGTH = 16;

export function configuredToken(fromEnv: string | undefined, file: string | undefined): string | undefined {
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (file === undefined) return undefined;
  const token = readFileSync(file, 'utf8').trim();
  if (token.length < MIN_TOKEN_LENGTH) throw new Error(`${file}: the token must be at least ${MIN_TOKEN_LENGTH} characters`);
  return token;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether the request carries `Authorization: Bearer <token>`. */
export function bearerMatches(request: FastifyRequest, token: string | undefined): boolean {
  const header = request.headers.authorization ?? '';
  const given = header.startsWith('Bearer ') ? header.slice(7) : '';
  return token !== undefined && timingSafeEqual(digest(given), digest(token));
}
