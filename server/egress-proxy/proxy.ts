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
import { createSecureContext, rootCertificates, TLSSocket, type SecureContext, type TLSSocketOptions } from 'node:tls';
import { Duplex, Readable } from 'node:stream';
import { canonicalHost } from '../../src/host/network/address.js';
import { nodeResolver } from '../../src/host/network/node-network.js';
import { BODY_UNKNOWN, decide, type Decision, type NetworkPolicy } from '../../src/host/network/policy.js';
import { REQUEST_HEADER_BYTES } from '../../src/host/network/request-headers.js';
import { scrubStream } from '../../src/host/network/scrub-stream.js';
import { scrubText, secretHeaders, withSecrets } from '../../src/host/network/secrets.js';
import { createEphemeralCa } from './ca.js';
import { relay } from './relay.js';
import { regionReads } from './read-regions.js';
import { readSni } from './sni.js';
import { PROXY_CIPHERS } from './tls-ciphers.js';
import { upstreamClient, type UpstreamResponse } from './upstream.js';

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
  headerBytes: REQUEST_HEADER_BYTES,
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
  /** The exact `host:port` entry that opened a loopback or private service for this request. */
  exception?: string;
  /** For requests carried out: the upstream status, body bytes passed on, and time taken (a tunnel: bytes from the far side, no status). */
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

/**
 * How much of a response may wait in the client's socket before the upstream read pauses.
 * Node's default (16 KiB) is a quarter of one upstream read, so every chunk paused the
 * upstream until the client had taken it: the two sides never ran at once.
 */
const CLIENT_HIGH_WATER_MARK = 256 * 1024;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);
const CONNECT_TARGET = /^(\[[0-9a-fA-F:.]+\]|[^\s/@?#[\]:\\]+):(\d{1,5})$/;

function urlForLog(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}

/** Answers a request the proxy refused or could not carry out; cuts it if its answer had begun. */
function answer(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Airlock-Proxy': 'refused' }).end(`airlock egress proxy: ${message}\n`);
}

/**
 * What the HTTP parser's refusals tell the client. Node's own answer to a head over
 * maxHeaderSize is a bare 431 with no reason; this one names the limit.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex, headerBytes: number): void {
  if (!socket.writable) return void socket.destroy();
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ['431 Request Header Fields Too Large', `the request head is larger than the proxy's headerBytes (${headerBytes} bytes)`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['408 Request Timeout', 'the request did not arrive within the proxy\'s time limits']
        : ['400 Bad Request', `malformed request: ${error.message}`];
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nairlock egress proxy: ${message}\n`);
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

const NO_BODY = Buffer.alloc(0);

/**
 * The request body, up to `limit` bytes. Past the limit the rest is read and dropped, so the
 * client, still sending, gets the 413 rather than a reset connection (the server's time
 * limits bound how long that may take).
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> | Buffer {
  // A request that declares no body (most GETs) has none to wait for.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return NO_BODY;
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
      context = ca.leafFor(host).then((leaf) => createSecureContext({ ...leaf, ciphers: PROXY_CIPHERS, honorCipherOrder: true }));
      contexts.set(host, context);
    }
    return context;
  };

  // Upstream connections are kept per origin and checked address set: a connection is reused
  // only for the addresses it was pinned to.
  const upstreams = upstreamClient({ ca: trusted, idleMs: limits.idleMs, totalMs: limits.totalMs, headBytes: limits.headerBytes });

  const report = (method: string, url: URL, decision: Decision, extra: Partial<ProxyDecision> = {}): void => {
    if (options.onDecision === undefined) return;
    const exception = decision.allowed && decision.exception !== undefined ? { exception: decision.exception } : {};
    try {
      options.onDecision({ enforcer: 'proxy', method, url: urlForLog(url), host: canonicalHost(url.hostname), allowed: decision.allowed, reason: decision.allowed ? null : decision.reason, rule: decision.rule, ...exception, ...extra });
    } catch (error) {
      // The hook is called from stream callbacks, where a throw would end the process; the
      // request it reports on has been decided either way.
      process.emitWarning(`airlock egress proxy: the decision hook threw: ${(error as Error).message}`);
    }
  };

  /** Runs one request's handling; whatever it throws answers that request (502), never the process. */
  const guarded = (res: ServerResponse, work: Promise<void>): void => {
    work.catch((error: unknown) => answer(res, 502, `could not handle the request: ${error instanceof Error ? error.message : String(error)}`));
  };

  /** Decides and forwards one request (plain, or from inside a terminated tunnel). */
  const forward = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    let body: Buffer;
    try {
      const read = readBody(req, limits.requestBytes);
      body = Buffer.isBuffer(read) ? read : await read;
    } catch (error) {
      answer(res, 413, (error as Error).message);
      return;
    }
    const decision = await decide(policy, method, url, resolve, body.length > 0 ? body : undefined);
    if (!decision.allowed) {
      report(method, url, decision);
      answer(res, decision.failure === 'resolve' ? 502 : 403, `refused: ${decision.reason}`);
      return;
    }
    const headers: Array<[string, string]> = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] as string;
      if (!HOP_BY_HOP.has(name.toLowerCase())) headers.push([name, req.rawHeaders[i + 1] as string]);
    }
    // Where the policy binds secrets they are injected here, and their echoes scrubbed below.
    const scrubbing = policy.secrets !== undefined && policy.secrets.length > 0;
    const sent = scrubbing ? withSecrets(headers, secretHeaders(policy.secrets, url, { webSearch: policy.webSearch })) : headers;
    let upstream: UpstreamResponse | undefined;
    try {
      upstream = await upstreams.request({ url, addresses: decision.addresses, method, headers: sent, body });
      const out: Record<string, string | string[]> = {};
      let length: string | undefined;
      for (const [rawName, value] of upstream.headers) {
        const name = rawName.toLowerCase();
        // (Repeated values were checked equal when the head was read: one is passed on.)
        if (name === 'content-length') length = value.split(',')[0]?.trim();
        if (HOP_BY_HOP.has(name)) continue;
        const scrubbed = scrubbing ? scrubText(policy.secrets, value) : value;
        const before = out[name];
        out[name] = before === undefined ? scrubbed : Array.isArray(before) ? [...before, scrubbed] : [before, scrubbed];
      }
      // The length passes on where the body passes unchanged (no chunked framing for either side
      // to add and parse); scrubbing may change it, and then the body goes chunked.
      if (!scrubbing && length !== undefined) out['content-length'] = length;
      const status = upstream.status;
      res.writeHead(status, out);
      const onEnd = ({ bytes, error }: { bytes: number; error?: Error }): void => {
        report(method, url, decision, { status, bytes, durationMs: Math.round(performance.now() - started), ...(error ? { reason: error.message } : {}) });
      };
      if (!scrubbing) {
        // The body goes from the upstream's reads straight into the response, counted against the cap.
        upstream.relayTo(res, limits.responseBytes, 'the response', onEnd);
        return;
      }
      // The scrubber (a pass through JS per chunk, keeping views of its input across chunks)
      // only where there are secrets to scrub.
      const raw = upstream.body;
      const source: Readable = raw.pipe(scrubStream(policy.secrets));
      raw.once('error', (error: Error) => source.destroy(error));
      relay(source, res, limits.responseBytes, 'the response', (end) => {
        if (end.error !== undefined) raw.destroy();
        onEnd(end);
      });
    } catch (error) {
      // (A head the client's side refused, e.g. a header value Node will not write: the body is not read.)
      upstream?.discard();
      const name = (error as Error).name;
      const timedOut = name === 'TimeoutError';
      report(method, url, decision, { reason: (error as Error).message, durationMs: Math.round(performance.now() - started) });
      answer(res, timedOut ? 504 : 502, timedOut ? `no answer from ${url.host} within the proxy's time limits (idle ${limits.idleMs} ms, total ${limits.totalMs} ms)` : `could not reach ${url.host}: ${(error as Error).message}`);
    }
  };

  // Requests inside terminated tunnels arrive here; the socket says which CONNECT they came through.
  const inner = createServer({ maxHeaderSize: limits.headerBytes, highWaterMark: CLIENT_HIGH_WATER_MARK }, (req, res) => {
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
    guarded(res, forward(req, res, url));
  });
  inner.on('clientError', (error: Error, socket: Duplex) => answerClientError(error, socket, limits.headerBytes));
  inner.headersTimeout = limits.idleMs;
  inner.requestTimeout = limits.totalMs;

  const server: Server = createServer({ maxHeaderSize: limits.headerBytes, highWaterMark: CLIENT_HIGH_WATER_MARK }, (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`airlock egress proxy: not a proxy request (an absolute http:// URL or CONNECT): ${JSON.stringify((req.url ?? '').slice(0, 200))}\n`);
    }
    guarded(res, forward(req, res, url));
  });
  server.on('clientError', (error: Error, socket: Duplex) => answerClientError(error, socket, limits.headerBytes));
  server.maxConnections = limits.connections;
  server.headersTimeout = limits.idleMs;
  server.requestTimeout = limits.totalMs;
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    // Whether the client has been told 200 (after that, a failure can only cut the connection).
    let established = false;
    (async () => {
      client.on('error', () => undefined);
      const match = CONNECT_TARGET.exec(req.url ?? '');
      if (match === null) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\nairlock egress proxy: CONNECT needs host:port\n');
      let url: URL;
      try {
        url = new URL(`https://${match[1]}:${match[2]}/`);
      } catch {
        return void client.end(`HTTP/1.1 400 Bad Request\r\n\r\nairlock egress proxy: CONNECT target ${JSON.stringify((req.url ?? '').slice(0, 200))} is not a valid host:port (port 0-65535)\n`);
      }
      const target = { host: canonicalHost(url.hostname), port: url.port || '443' };
      const decision = await decide(policy, 'CONNECT', url, resolve, BODY_UNKNOWN);
      if (!decision.allowed) {
        report('CONNECT', url, decision);
        return void client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\nairlock egress proxy: refused: ${decision.reason}\n`);
      }
      established = true;
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
      // (TLSSocket passes highWaterMark on to its net.Socket; @types/node does not list it.)
      const tlsOptions: TLSSocketOptions & { highWaterMark: number } = {
        isServer: true,
        highWaterMark: CLIENT_HIGH_WATER_MARK,
        secureContext: context,
        SNICallback: (name, done) => (canonicalHost(name) === target.host ? done(null, context) : done(new Error(`SNI ${name} differs from the CONNECT target ${target.host}`))),
      };
      const tls = new TLSSocket(client, tlsOptions);
      tls.on('error', () => client.destroy());
      targets.set(tls, { ...target, scheme: 'https' });
      inner.emit('connection', tls);
    })().catch((error: unknown) => {
      if (established || client.destroyed) return void client.destroy();
      client.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n\r\nairlock egress proxy: could not handle the CONNECT: ${error instanceof Error ? error.message : String(error)}\n`);
    });
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
      try {
        onHello(chunk);
      } catch (error) {
        // An event handler's throw would end the process: it ends this tunnel instead.
        fail(`could not open the tunnel: ${(error as Error).message}`);
      }
    };
    const onHello = (chunk: Buffer): void => {
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
      // The far side's bytes, read in regions of large buffers (read-regions.ts), as a stream for relay().
      const down = new Readable({
        read: () => void upstream.resume(),
        destroy: (error, done) => {
          upstream.destroy();
          done(error);
        },
      });
      const reads = regionReads((chunk) => {
        reads.retain(chunk);
        if (!down.push(chunk)) upstream.pause();
        return !upstream.isPaused();
      });
      const upstream: Socket = netConnect({ host: decision.addresses[0] ?? target.host, port: Number(target.port), onread: reads.onread });
      upstream.once('end', () => down.push(null));
      upstream.on('error', (error) => {
        report('CONNECT', url, decision, { reason: error.message });
        down.destroy();
        client.destroy();
      });
      upstream.once('connect', () => {
        const started = performance.now();
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
        // Reported once the far side's bytes end, with how many there were.
        relay(down, client, limits.responseBytes, 'the tunnelled response', ({ bytes }) => report('CONNECT', url, decision, { bytes, durationMs: Math.round(performance.now() - started) }), reads.release);
        relay(client, upstream, limits.requestBytes, 'the tunnelled request', () => undefined);
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
        upstreams.close();
        server.close(() => done());
      }),
  };
}
