// The MCP service: streamable HTTP at /mcp (docs/mcp.md). Clients are programs, not pages,
// so /mcp takes a bearer token (mcp.tokenFile or AIRLOCK_MCP_TOKEN), compared in constant
// time; without a configured token the endpoint answers 503 saying how to turn it on. Each
// initialize opens a session (its own sandbox) with an Mcp-Session-Id; DELETE or mcp.idleMs
// without a request ends it and destroys its sandboxes; past mcp.maxSessions a new client is
// refused with 503 naming the limit.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { NetworkPolicy } from '../../src/host/network/policy.js';
import { bearerMatches, configuredToken } from '../bearer-token.js';
import type { ServerService } from '../service.js';
import { McpSessions, McpSessionsFull } from './sessions.js';

export const MCP_PATH = '/mcp';

function jsonRpcError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/** The web Request the transport reads: method, URL and headers; the body comes parsed. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const one of value) headers.append(name, one);
  }
  return new Request(`http://${request.host}${request.url}`, { method: request.method, headers });
}

export const mcpService: ServerService = {
  name: 'mcp',
  register(app, context) {
    const token = configuredToken(process.env.AIRLOCK_MCP_TOKEN, context.config.mcp.tokenFile);
    const { network, mcp } = context.config;
    const { secrets: _secrets, dnsServers, responseBytes: _r, requestBytes: _q, ...policy } = network;
    const sessions = new McpSessions({
      sandbox: {
        network: policy as NetworkPolicy,
        ...(dnsServers === undefined ? {} : { dnsServers }),
        ...(mcp.limits === undefined ? {} : { limits: mcp.limits }),
        ...(mcp.allowedTools === undefined ? {} : { allowedTools: mcp.allowedTools }),
      },
      maxSessions: mcp.maxSessions,
      idleMs: mcp.idleMs,
      onEnd: (id, why) => app.log.info({ mcpSession: id, why }, 'MCP session ended'),
    });
    const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
    app.addHook('onClose', async () => {
      await sessions.closeAll();
    });

    const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
      if (token === undefined) return jsonRpcError(reply, 503, 'MCP over HTTP is off: give the server a token (mcp.tokenFile, AIRLOCK_MCP_TOKEN_FILE or AIRLOCK_MCP_TOKEN)');
      if (!bearerMatches(request, token)) return jsonRpcError(reply.header('www-authenticate', 'Bearer'), 401, 'missing or wrong bearer token (Authorization: Bearer <the server\'s MCP token>)');
      const id = request.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (transport !== undefined && typeof id === 'string') sessions.get(id);
      else if (typeof id === 'string') return jsonRpcError(reply, 404, `no MCP session ${id} (it ended, or was never opened): initialize a new one`);
      else if (request.method === 'POST' && isInitializeRequest(request.body)) {
        let opened: Awaited<ReturnType<McpSessions['create']>>;
        const fresh = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => sessionId,
          // A tool call's answer as one JSON body: no event stream to open and close per call.
          enableJsonResponse: true,
          onsessionclosed: (closedId) => {
            transports.delete(closedId);
            void sessions.close(closedId);
          },
        });
        const sessionId = crypto.randomUUID();
        try {
          opened = await sessions.create(() => {
            transports.delete(sessionId);
            void fresh.close();
          }, sessionId);
        } catch (error) {
          if (error instanceof McpSessionsFull) return jsonRpcError(reply, 503, error.message);
          throw error;
        }
        transports.set(sessionId, fresh);
        fresh.onclose = () => {
          transports.delete(sessionId);
          void sessions.close(sessionId);
        };
        await opened.server.connect(fresh);
        transport = fresh;
      } else return jsonRpcError(reply, 400, 'no Mcp-Session-Id: the first request of a session must be initialize');
      // The web-standard transport, handed the body Fastify already parsed: the Node transport
      // would rebuild a full web Request around the raw stream (a body stream to re-read) and
      // copy the answer back by hand, most of /mcp's per-request cost (docs/mcp.md §Figures).
      // Fastify sends the web Response it returns, an event stream (GET) included.
      return reply.send(await transport.handleRequest(webRequest(request), { parsedBody: request.body }));
    };
    app.post(MCP_PATH, handle);
    app.get(MCP_PATH, handle);
    app.delete(MCP_PATH, handle);
  },
};
