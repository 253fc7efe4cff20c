// The egress proxy (ARCHITECTURE.md §7): how processes and microVMs reach the network under
// the same policy engine as sandboxes. An HTTP forward proxy on loopback (or a unix socket):
// - plain HTTP requests (absolute-form) are decided and forwarded;
// - CONNECT to a host marked `tunnel` is decided on the name, connected to the checked
//   address, and tunnelled as is once the ClientHello's SNI is seen to name that host;
// - any other CONNECT is terminated with a certificate from the proxy's ephemeral CA, so each
//   request inside is decided like a plain one (method+path rules, token profiles) and gets
//   its secrets injected; its Host must be the CONNECT target and its SNI too.
// Upstream connections go to the addresses the policy checked (pinned lookup). Caps: request
// and response bytes, concurrent connections, idle and total time per request.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { createSecureContext, rootCertificates, TLSSocket, type SecureContext } from 'node:tls';
import { Duplex, Transform, pipeline, type Readable } from 'node:stream';
import { Agent, request as undiciRequest } from 'undici';
import { canonicalHost } from '../../src/host/network/address.js';
import { nodeResolver, pinnedLookup } from '../../src/host/network/node-network.js';
import { BODY_UNKNOWN, decide, type Decision, type NetworkPolicy } from '../../src/host/network/policy.js';
import { scrubStream } from '../../src/host/network/scrub-stream.js';
import { scrubText, secretHeaders, withSecrets } from '../../src/host/network/secrets.js';
import { createEphemeralCa } from './ca.js';
import { relay } from './relay.js';
import { readSni } from './sni.js';

export interface ProxyLimits {
  /** Largest request body (bytes). */
  requestBytes: number;
  /** Largest response body, or bytes from the far side of a tunnel. */
  responseBytes: number;
  /** Client connections open at once. */
  connections: number;
  /** Silence allowed from either side before a request or tunnel is ended (ms). */
  idleMs: number;
  /** Longest a request or tunnel may take (ms). */
  totalMs: number;
  /** Largest request head from a client. */
  headerBytes: number;
}

export const DEFAULT_PROXY_LIMITS: Readonly<ProxyLimits> = Object.freeze({
  requestBytes: 16 * 1024 * 1024,
  responseBytes: 64 * 1024 * 1024,
  connections: 64,
  idleMs: 30_000,
  totalMs: 300_000,
  headerBytes: 32 * 1024,
});

/** One decision of the proxy, for the audit hook (no headers, no bodies, never a secret). */
export interface ProxyDecision {
  enforcer: 'proxy';
  method: string;
  url: string;
  host: string;
  allowed: boolean;
  reason: string | null;
  rule: string;
  /** For requests carried out: the upstream status, body bytes passed on, and time taken. */
  status?: number;
  bytes?: number;
  durationMs?: number;
}

export interface EgressProxyOptions {
  policy: NetworkPolicy;
  /** DNS servers for the floor's lookups (default: the system's resolver). */
  dnsServers?: string[];
  /** CA certificates (PEM) trusted for upstream TLS besides the system's (a test upstream). */
  upstreamCa?: string[];
  limits?: Partial<ProxyLimits>;
  onDecision?: (decision: ProxyDecision) => void;
  /** Listen on this unix socket instead of 127.0.0.1. */
  socketPath?: string;
  host?: string;
  port?: number;
}

export interface EgressProxy {
  /** `http://127.0.0.1:PORT` (HTTP_PROXY / HTTPS_PROXY), or undefined on a unix socket. */
  url: string | undefined;
  port: number | undefined;
  socketPath: string | undefined;
  /** The ephemeral CA's certificate (PEM) a client must trust for terminated HTTPS. */
  caCertificate: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);
const CONNECT_TARGET = /^(\[[0-9a-fA-F:.]+\]|[^\s/@?#[\]:\\]+):(\d{1,5})$/;

function urlForLog(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}

/** Passes at most `limit` bytes, then fails with a message naming the cap. */
function capped(limit: number, what: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) done(new Error(`${what} is larger than the proxy's ${limit} bytes`));
      else done(null, chunk);
    },
  });
}

/**
 * The client's socket as a JS stream that first replays the bytes already read from it (to
 * tell TLS from plain HTTP), so TLS and the HTTP parser read everything through JS.
 */
function replaying(socket: Socket, first: Buffer): Duplex {
  const stream = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, done) {
      socket.write(chunk, done);
    },
    final(done) {
      socket.end();
      done();
    },
    destroy(error, done) {
      socket.destroy(error ?? undefined);
      done(error);
    },
  });
  stream.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.on('end', () => stream.push(null));
  socket.on('close', () => stream.destroy());
  socket.resume();
  // What the HTTP server calls on a connection, passed to the socket.
  return Object.assign(stream, {
    setTimeout: (ms: number, callback?: () => void) => (socket.setTimeout(ms, callback), stream),
    setNoDelay: () => stream,
    setKeepAlive: () => stream,
    remoteAddress: socket.remoteAddress,
  });
}

/**
 * The request body, up to `limit` bytes. Past the limit the rest is read and dropped, so the
 * client, still sending, gets the 413 rather than a reset connection (the server's time
 * limits bound how long that may take).
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total <= limit) chunks.push(chunk);
    });
    req.on('end', () => (total > limit ? reject(new RangeError(`the request body is larger than the proxy's requestBytes (${limit} bytes)`)) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const limits: ProxyLimits = { ...DEFAULT_PROXY_LIMITS, ...(options.limits ?? {}) };
  const policy = options.policy;
  const resolve = nodeResolver(options.dnsServers);
  const ca = await createEphemeralCa();
  const trusted = options.upstreamCa === undefined ? undefined : [...rootCertificates, ...options.upstreamCa];
  const targets = new WeakMap<object, { host: string; port: string; scheme: 'http' | 'https' }>();
  const open = new Set<Socket>();
  // One TLS context per host for the proxy's life (the leaf certificate is made once, too).
  const contexts = new Map<string, Promise<SecureContext>>();
  const contextFor = (host: string): Promise<SecureContext> => {
    let context = contexts.get(host);
    if (context === undefined) {
      context = ca.leafFor(host).then((leaf) => createSecureContext(leaf));
      contexts.set(host, context);
    }
    return context;
  };

  // Upstream connections are kept per origin and checked address set: a connection is reused
  // only for the addresses it was pinned to.
  const agents = new Map<string, Agent>();
  const upstreamAgent = (url: URL, addresses: string[]): Agent => {
    const key = `${url.origin} ${addresses.join(',')}`;
    let agent = agents.get(key);
    if (agent === undefined) {
      agent = new Agent({
        connect: { ...(addresses.length > 0 ? { lookup: pinnedLookup(addresses) } : {}), ...(trusted === undefined ? {} : { ca: trusted }) },
        headersTimeout: limits.idleMs,
        bodyTimeout: limits.idleMs,
      });
      agents.set(key, agent);
    }
    return agent;
  };

  const report = (method: string, url: URL, decision: Decision, extra: Partial<ProxyDecision> = {}): void => {
    options.onDecision?.({ enforcer: 'proxy', method, url: urlForLog(url), host: canonicalHost(url.hostname), allowed: decision.allowed, reason: decision.allowed ? null : decision.reason, rule: decision.rule, ...extra });
  };

  /** Decides and forwards one request (plain, or from inside a terminated tunnel). */
  const forward = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const answer = (status: number, message: string): void => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Airlock-Proxy': 'refused' }).end(`airlock egress proxy: ${message}\n`);
    };
    let body: Buffer;
    try {
      body = await readBody(req, limits.requestBytes);
    } catch (error) {
      answer(413, (error as Error).message);
      return;
    }
    const decision = await decide(policy, method, url, resolve, body.length > 0 ? body : undefined);
    if (!decision.allowed) {
      report(method, url, decision);
      answer(decision.failure === 'resolve' ? 502 : 403, `refused: ${decision.reason}`);
      return;
    }
    const headers: Array<[string, string]> = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] as string;
      if (!HOP_BY_HOP.has(name.toLowerCase())) headers.push([name, req.rawHeaders[i + 1] as string]);
    }
    const sent = withSecrets(headers, secretHeaders(policy.secrets, url, { webSearch: policy.webSearch }));
    const agent = upstreamAgent(url, decision.addresses);
    try {
      const upstream = await undiciRequest(url, { method: method as 'GET', headers: sent.flat(), body: body.length > 0 ? body : undefined, dispatcher: agent, signal: AbortSignal.timeout(limits.totalMs) });
      const scrubbing = policy.secrets !== undefined && policy.secrets.length > 0;
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(upstream.headers)) {
        if (value === undefined || HOP_BY_HOP.has(name)) continue;
        out[name] = Array.isArray(value) ? value.map((v) => scrubText(policy.secrets, v)) : scrubText(policy.secrets, value);
      }
      // The length passes on where the body passes unchanged (no chunked framing for either side
      // to add and parse); scrubbing may change it, and then the body goes chunked.
      const length = upstream.headers['content-length'];
      if (!scrubbing && typeof length === 'string') out['content-length'] = length;
      res.writeHead(upstream.statusCode, out);
      // The scrubber (a pass through JS per chunk) only where there are secrets to scrub.
      const source: Readable = scrubbing ? upstream.body.pipe(scrubStream(policy.secrets)) : upstream.body;
      if (source !== upstream.body) upstream.body.once('error', (error: Error) => source.destroy(error));
      relay(source, res, limits.responseBytes, 'the response', ({ bytes, error }) => {
        if (error !== undefined) upstream.body.destroy();
        report(method, url, decision, { status: upstream.statusCode, bytes, durationMs: Math.round(performance.now() - started), ...(error ? { reason: error.message } : {}) });
      });
    } catch (error) {
      const name = (error as Error).name;
      const timedOut = name === 'TimeoutError' || name === 'HeadersTimeoutError' || name === 'BodyTimeoutError';
      report(method, url, decision, { reason: (error as Error).message, durationMs: Math.round(performance.now() - started) });
      answer(timedOut ? 504 : 502, timedOut ? `no answer from ${url.host} within the proxy's time limits (idle ${limits.idleMs} ms, total ${limits.totalMs} ms)` : `could not reach ${url.host}: ${(error as Error).message}`);
    }
  };

  // Requests inside terminated tunnels arrive here; the socket says which CONNECT they came through.
  const inner = createServer({ maxHeaderSize: limits.headerBytes }, (req, res) => {
    const target = targets.get(req.socket);
    if (target === undefined) return void res.writeHead(400).end();
    const hostHeader = req.headers.host ?? '';
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `${target.scheme}://${hostHeader}`);
    } catch {
      return void res.writeHead(400).end('airlock egress proxy: malformed request target\n');
    }
    const port = url.port || (target.scheme === 'https' ? '443' : '80');
    if (canonicalHost(url.hostname) !== target.host || port !== target.port) {
      return void res.writeHead(421, { 'Content-Type': 'text/plain' }).end(`airlock egress proxy: refused: Host ${hostHeader} differs from the CONNECT target ${target.host}:${target.port}\n`);
    }
    void forward(req, res, url);
  });
  inner.headersTimeout = limits.idleMs;
  inner.requestTimeout = limits.totalMs;

  const server: Server = createServer({ maxHeaderSize: limits.headerBytes }, (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`airlock egress proxy: not a proxy request (an absolute http:// URL or CONNECT): ${JSON.stringify((req.url ?? '').slice(0, 200))}\n`);
    }
    void forward(req, res, url);
  });
  server.maxConnections = limits.connections;
  server.headersTimeout = limits.idleMs;
  server.requestTimeout = limits.totalMs;
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    void (async () => {
      client.on('error', () => undefined);
      const match = CONNECT_TARGET.exec(req.url ?? '');
      if (match === null) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\nairlock egress proxy: CONNECT needs host:port\n');
      const url = new URL(`https://${match[1]}:${match[2]}/`);
      const target = { host: canonicalHost(url.hostname), port: url.port || '443' };
      const decision = await decide(policy, 'CONNECT', url, resolve, BODY_UNKNOWN);
      if (!decision.allowed) {
        report('CONNECT', url, decision);
        return void client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\nairlock egress proxy: refused: ${decision.reason}\n`);
      }
      if (decision.tunnel === true) return tunnel(client, head, url, target, decision);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      // TLS inside (the usual case) is terminated; a client that speaks plain HTTP through
      // CONNECT gets its requests decided the same way, as http://.
      const first = head.length > 0 ? head : await new Promise<Buffer | undefined>((resolveFirst) => {
        const timer = setTimeout(() => resolveFirst(undefined), limits.idleMs);
        client.once('data', (chunk: Buffer) => {
          clearTimeout(timer);
          client.pause();
          resolveFirst(chunk);
        });
        client.once('close', () => resolveFirst(undefined));
      });
      if (first === undefined) return void client.destroy();
      if (first[0] !== 0x16) {
        const stream = replaying(client, first);
        targets.set(stream, { ...target, scheme: 'http' });
        inner.emit('connection', stream);
        return;
      }
      const context = await contextFor(target.host);
      // The bytes read to tell TLS from plain HTTP go back into the socket; TLSSocket feeds
      // them to its native wrap first and then reads the socket's handle directly (no JS in
      // between, which halved throughput when every record passed through a JS stream).
      client.unshift(first);
      client.setNoDelay(true);
      const tls = new TLSSocket(client, {
        isServer: true,
        secureContext: context,
        SNICallback: (name, done) => (canonicalHost(name) === target.host ? done(null, context) : done(new Error(`SNI ${name} differs from the CONNECT target ${target.host}`))),
      });
      tls.on('error', () => client.destroy());
      targets.set(tls, { ...target, scheme: 'https' });
      inner.emit('connection', tls);
    })();
  });

  /** A tunnel the proxy does not terminate: the checked address, and the SNI must name the host. */
  const tunnel = (client: Socket, head: Buffer, url: URL, target: { host: string; port: string }, decision: Decision & { allowed: true }): void => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    let hello = head;
    const fail = (reason: string): void => {
      report('CONNECT', url, { allowed: false, rule: 'tunnel', reason });
      client.destroy();
    };
    const idle = setTimeout(() => fail(`no ClientHello within ${limits.idleMs} ms`), limits.idleMs);
    const onData = (chunk: Buffer): void => {
      hello = Buffer.concat([hello, chunk]);
      const sni = readSni(hello);
      if (sni === 'incomplete') {
        if (hello.length > 16 * 1024) fail('the ClientHello is larger than 16 KiB');
        return;
      }
      client.off('data', onData);
      client.pause();
      clearTimeout(idle);
      if ('error' in sni) return fail(sni.error);
      if (sni.name === undefined || canonicalHost(sni.name) !== target.host) return fail(`SNI ${sni.name ?? '(none)'} differs from the CONNECT target ${target.host}`);
      const upstream = netConnect({ host: decision.addresses[0] ?? target.host, port: Number(target.port) });
      upstream.on('error', (error) => {
        report('CONNECT', url, decision, { reason: error.message });
        client.destroy();
      });
      upstream.once('connect', () => {
        report('CONNECT', url, decision);
        upstream.write(hello);
        const total = setTimeout(() => {
          upstream.destroy();
          client.destroy();
        }, limits.totalMs);
        for (const socket of [client, upstream]) {
          socket.setTimeout(limits.idleMs, () => {
            upstream.destroy();
            client.destroy();
          });
          socket.on('close', () => {
            clearTimeout(total);
            upstream.destroy();
            client.destroy();
          });
        }
        pipeline(upstream, capped(limits.responseBytes, 'the tunnelled response'), client, () => undefined);
        pipeline(client, capped(limits.requestBytes, 'the tunnelled request'), upstream, () => undefined);
        client.resume();
      });
    };
    client.on('data', onData);
    if (head.length > 0) onData(Buffer.alloc(0));
  };

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    if (options.socketPath !== undefined) server.listen(options.socketPath, resolveListen);
    else server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolveListen);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : undefined;
  const host = options.host ?? '127.0.0.1';
  return {
    url: port === undefined ? undefined : `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    socketPath: options.socketPath,
    caCertificate: ca.certificate,
    close: () =>
      new Promise((done) => {
        for (const socket of open) socket.destroy();
        for (const agent of agents.values()) void agent.destroy();
        server.close(() => done());
      }),
  };
}
