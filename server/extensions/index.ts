// The extensions service (docs/extensions.md): runs the extensions the configuration lists
// (`extensions.hosted`: a JS/TS module's handler, or a host executable) for the browser
// sandboxes of this server's pages. GET /api/extensions lists them (names, descriptions,
// limits); POST /api/extensions/call runs one call with its stdin and returns its output
// and status. Both are for this server's pages only (context.pageOnly). The limits, the
// timeout, a throw and the audit event are the same code as a Node sandbox's
// (src/host/extensions/extension-host.ts).

import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ExtensionHost } from '../../src/host/extensions/extension-host.js';
import { resolveExtensions, type ExtensionHandler, type ResolvedExtension } from '../../src/host/extensions/spec.js';
import { EXTENSION_CALL_PATH, EXTENSIONS_LIST_PATH, type ExtensionCallReply, type ExtensionCallRequest, type HostedExtensionInfo } from '../../src/protocol/extensions.js';
import type { HostedExtensionConfig } from '../config/schema.js';
import type { ServerService, ServiceContext } from '../service.js';
import { executableHandler } from './executable.js';

class ExtensionRequestError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** The handler a configured extension names: its module's export, or its executable. */
async function handlerOf(entry: HostedExtensionConfig): Promise<ExtensionHandler> {
  if ((entry.module === undefined) === (entry.command === undefined)) {
    throw new Error(`extensions.hosted ${entry.name}: give exactly one of module or command`);
  }
  if (entry.command !== undefined) return executableHandler({ command: entry.command, cwd: entry.cwd, env: entry.env });
  const loaded = await importModule(resolvePath(entry.module as string));
  const exported = entry.export !== undefined ? loaded[entry.export] : (loaded.default ?? loaded.handler);
  if (typeof exported !== 'function') {
    throw new Error(`extensions.hosted ${entry.name}: ${entry.module} exports no function ${entry.export ?? 'default or handler'}`);
  }
  return exported as ExtensionHandler;
}

/** A JS module, or a TS one through tsx (a devDependency: a deployment compiles its .ts or installs tsx). */
async function importModule(path: string): Promise<Record<string, unknown>> {
  if (!/\.[cm]?ts$/.test(path)) return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  // Named by a variable so that bundling the server leaves tsx out.
  const tsxApi = 'tsx/esm/api';
  let tsImport: (specifier: string, parent: string) => Promise<unknown>;
  try {
    ({ tsImport } = (await import(tsxApi)) as { tsImport: typeof tsImport });
  } catch {
    throw new Error(`${path}: a TypeScript extension module needs tsx (npm install tsx), or compile it to .mjs`);
  }
  return (await tsImport(pathToFileURL(path).href, import.meta.url)) as Record<string, unknown>;
}

/** Loads the configured extensions; a bad entry stops the server with its name and reason. */
export async function loadHostedExtensions(entries: readonly HostedExtensionConfig[]): Promise<ResolvedExtension[]> {
  const specs = [];
  for (const entry of entries) {
    specs.push({ name: entry.name, description: entry.description, handler: await handlerOf(entry), timeoutMs: entry.timeoutMs, maxStdinBytes: entry.maxStdinBytes, maxOutputBytes: entry.maxOutputBytes });
  }
  return resolveExtensions(specs);
}

function parseCall(body: unknown): ExtensionCallRequest {
  const b = body as Partial<ExtensionCallRequest> | null;
  const strings = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string');
  const env = b?.env;
  if (
    typeof b !== 'object' || b === null || typeof b.name !== 'string' || !strings(b.args) || typeof b.cwd !== 'string' || typeof b.stdin !== 'string' ||
    typeof env !== 'object' || env === null || !Object.values(env).every((value) => typeof value === 'string') ||
    (b.sessionId !== undefined && typeof b.sessionId !== 'string')
  ) {
    throw new ExtensionRequestError(400, 'the body must be JSON {"name", "args": [strings], "env": {strings}, "cwd", "stdin": base64}');
  }
  return b as ExtensionCallRequest;
}

function register(app: FastifyInstance, context: ServiceContext, extensions: ResolvedExtension[]): void {
  const byName = new Map(extensions.map((extension) => [extension.name, extension]));
  let nextCall = 1;
  app.get(EXTENSIONS_LIST_PATH, { onRequest: context.pageOnly }, async (): Promise<HostedExtensionInfo[]> =>
    extensions.map(({ name, description, timeoutMs, maxStdinBytes, maxOutputBytes }) => ({ name, description, timeoutMs, maxStdinBytes, maxOutputBytes })),
  );
  const largestStdin = Math.max(0, ...extensions.map((extension) => extension.maxStdinBytes));
  // base64 is 4/3 of the bytes; the rest of the envelope (args, env) gets 1 MiB.
  const bodyLimit = Math.ceil((largestStdin * 4) / 3) + 1024 * 1024;
  app.post(EXTENSION_CALL_PATH, { onRequest: context.pageOnly, bodyLimit }, async (request): Promise<ExtensionCallReply> => {
    const call = parseCall(request.body);
    const sessionId = call.sessionId ?? null;
    const host = new ExtensionHost(extensions, { allowedTools: undefined, audit: { emit: (draft) => context.audit.record(draft, { sessionId, source: 'server' }) }, runId: () => null });
    const stdin = Buffer.from(call.stdin, 'base64');
    const extension = byName.get(call.name);
    if (extension !== undefined && stdin.length > extension.maxStdinBytes) {
      context.audit.record({ type: 'extension.refused', runId: null, name: call.name, reason: 'stdin over maxStdinBytes' }, { sessionId, source: 'server' });
      throw new ExtensionRequestError(413, `stdin is ${stdin.length} bytes; extension ${call.name} takes at most ${extension.maxStdinBytes} (maxStdinBytes)`);
    }
    let offset = 0;
    const out: Record<'stdout' | 'stderr', Buffer[]> = { stdout: [], stderr: [] };
    let exitCode = 1;
    await host.call(
      {
        extensionRead: async (_id, max) => {
          const piece = stdin.subarray(offset, offset + max);
          offset += piece.length;
          return piece;
        },
        extensionWrite: async (_id, stream, data) => void out[stream].push(Buffer.from(data)),
        extensionExit: async (_id, status, output) => {
          if (output?.stdout !== undefined) out.stdout.push(Buffer.from(output.stdout));
          if (output?.stderr !== undefined) out.stderr.push(Buffer.from(output.stderr));
          exitCode = status;
        },
      },
      { callId: nextCall++, name: call.name, args: call.args, env: call.env, cwd: call.cwd },
    );
    return { stdout: Buffer.concat(out.stdout).toString('base64'), stderr: Buffer.concat(out.stderr).toString('base64'), exitCode };
  });
}

export const extensionsService: ServerService = {
  name: 'extensions',
  async register(app, context) {
    register(app, context, await loadHostedExtensions(context.config.extensions.hosted));
  },
};
