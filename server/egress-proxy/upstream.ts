// The proxy's HTTP/1.1 client to upstreams: connections to the checked addresses only, kept
// alive per origin and address set, one request at a time on each. The response body comes
// out as a Readable whose chunks are the socket's own (Content-Length framing) or slices of
// them (chunked), so relaying a body costs the proxy little more than the tunnel's byte copy.
// Time limits: `idleMs` of silence from the upstream, `totalMs` for the whole exchange (head
// and body); both end the exchange with a TimeoutError.

import { isIP, connect as netConnect, type Socket } from 'node:net';
import { Readable, type Writable } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { pinnedLookup } from '../../src/host/network/node-network.js';
import { regionReads, type RegionReads } from './read-regions.js';
import { PROXY_CIPHERS } from './tls-ciphers.js';
import { cappedSink, type RelayEnd } from './relay.js';
import { ChunkedDecoder, parseResponseHead, UpstreamProtocolError, type ResponseHead } from './response-framing.js';

export interface UpstreamRequest {
  url: URL;
  /** The addresses the policy checked for the host (empty for an address literal). */
  addresses: string[];
  method: string;
  /** Headers to send, without Host, Content-Length and hop-by-hop ones. */
  headers: Array<[string, string]>;
  body: Buffer;
}

export interface UpstreamResponse {
  status: number;
  headers: Array<[string, string]>;
  /**
   * The body as a Readable (made when first asked for), for a consumer that transforms it
   * (the scrubber): destroying it ends the exchange and drops the connection.
   */
  readonly body: Readable;
  /**
   * Writes the body straight into `sink` (no Readable in between), at most `limit` bytes
   * (`what` names the body in the error), with backpressure; ends `sink` when the body has
   * ended and calls `onEnd` once. On any failure both the exchange and `sink` are destroyed.
   * Each read buffer is read into again once the sink has written every chunk of it.
   * Use either this or `body`, not both.
   */
  relayTo(sink: Writable, limit: number, what: string, onEnd: (end: RelayEnd) => void): void;
  /** Gives up on the body (the answer could not be passed on): the exchange ends and its connection is dropped. */
  discard(): void;
}

export interface UpstreamOptions {
  /** CA certificates (PEM) trusted for upstream TLS, or undefined for the system's. */
  ca: string[] | undefined;
  idleMs: number;
  totalMs: number;
  /** Largest response head (and chunked trailers). */
  headBytes: number;
}

/** The upstream was silent too long, or the exchange took longer than allowed. */
export class UpstreamTimeoutError extends Error {
  override name = 'TimeoutError';
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const UNSAFE_VALUE = /[\r\n\0]/;
/** How long an unused kept-alive connection waits for its next request (under Node's default server keep-alive of 5 s). */
const KEEP_ALIVE_MS = 4000;
/** Kept-alive connections per origin and address set. */
const IDLE_PER_ORIGIN = 16;
/** Methods retried once on a fresh connection when a kept-alive one turns out closed. */
const RETRIED = new Set(['GET', 'HEAD', 'OPTIONS']);
const HEAD_END = Buffer.from('\r\n\r\n');
/** Body bytes that may wait for the response's consumer to attach before the socket pauses. */
const QUEUED_BYTES = 256 * 1024;

function requestHead(request: UpstreamRequest): string {
  let head = `${request.method} ${request.url.pathname}${request.url.search} HTTP/1.1\r\nHost: ${request.url.host}\r\n`;
  for (const [name, value] of request.headers) {
    // The client's headers passed Node's parser; injected ones come from configuration: both checked, as a line break would split the request.
    if (!TOKEN.test(name) || UNSAFE_VALUE.test(value)) throw new TypeError(`the header ${JSON.stringify(name.slice(0, 100))} has a name or value that cannot be sent`);
    head += `${name}: ${value}\r\n`;
  }
  if (request.body.length > 0 || request.method === 'POST' || request.method === 'PUT' || request.method === 'PATCH') head += `Content-Length: ${request.body.length}\r\n`;
  return `${head}\r\n`;
}

export interface UpstreamClient {
  request(request: UpstreamRequest): Promise<UpstreamResponse>;
  close(): void;
}

export function upstreamClient(options: UpstreamOptions): UpstreamClient {
  /** Kept-alive connections, each with the listener that drops it while it waits. */
  const idle = new Map<string, Array<{ socket: Socket; drop: () => void }>>();
  const all = new Set<Socket>();
  /** Where each connection's bytes go now: the exchange it carries, or the handler that drops it while idle. */
  const readers = new WeakMap<Socket, (chunk: Buffer) => void>();
  const regions = new WeakMap<Socket, RegionReads>();

  // (The scheme and host:port, as the origin says them: URL's origin getter costs more.)
  const keyOf = (request: UpstreamRequest): string => `${request.url.protocol}//${request.url.host} ${request.addresses.join(',')}`;

  const open = (request: UpstreamRequest): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const host = request.url.hostname.replace(/^\[(.*)\]$/, '$1');
      const port = Number(request.url.port || (request.url.protocol === 'https:' ? 443 : 80));
      const lookup = request.addresses.length > 0 ? { lookup: pinnedLookup(request.addresses) } : {};
      const reads = regionReads((chunk) => {
        readers.get(socket)?.(chunk);
        return !socket.isPaused();
      });
      const onread = reads.onread;
      // (tls.connect passes `onread` on to its socket; @types/node does not list it.)
      const tlsOptions: ConnectionOptions & { onread: typeof onread } = { host, port, ...lookup, onread, ...(isIP(host) === 0 ? { servername: host } : {}), ...(options.ca === undefined ? {} : { ca: options.ca }), ALPNProtocols: ['http/1.1'], ciphers: PROXY_CIPHERS };
      const socket: Socket = request.url.protocol === 'https:' ? tlsConnect(tlsOptions) : netConnect({ host, port, ...lookup, onread });
      all.add(socket);
      regions.set(socket, reads);
      socket.once('close', () => all.delete(socket));
      socket.setNoDelay(true);
      socket.setTimeout(options.idleMs, () => socket.destroy(new UpstreamTimeoutError(`no connection within ${options.idleMs} ms`)));
      const ready = (): void => {
        socket.off('error', reject);
        socket.removeAllListeners('timeout');
        resolve(socket);
      };
      socket.once(request.url.protocol === 'https:' ? 'secureConnect' : 'connect', ready);
      socket.once('error', reject);
    });

  /** A kept-alive connection to this origin and address set, or undefined. */
  const reuse = (key: string): Socket | undefined => {
    const list = idle.get(key) ?? [];
    for (let entry = list.pop(); entry !== undefined; entry = list.pop()) {
      const { socket, drop } = entry;
      readers.delete(socket);
      socket.off('error', drop).off('end', drop).removeAllListeners('timeout');
      if (!socket.destroyed && socket.writable) return socket;
    }
    return undefined;
  };

  const keep = (key: string, socket: Socket): void => {
    const list = idle.get(key) ?? [];
    if (list.length >= IDLE_PER_ORIGIN) return void socket.destroy();
    const drop = (): void => {
      const at = list.findIndex((entry) => entry.socket === socket);
      if (at >= 0) list.splice(at, 1);
      socket.destroy();
    };
    list.push({ socket, drop });
    idle.set(key, list);
    // An idle connection has nothing to say: bytes from it, an error or its end drop it.
    readers.set(socket, drop);
    socket.on('error', drop).on('end', drop);
    socket.setTimeout(KEEP_ALIVE_MS, drop);
    socket.resume();
  };

  /** One exchange on `socket`; rejects with `stale` set when a reused connection failed before any byte of the answer. */
  const exchange = (socket: Socket, request: UpstreamRequest, head: string, key: string, reused: boolean): Promise<UpstreamResponse> =>
    new Promise((resolve, reject) => {
      let received = 0;
      let pending: Buffer = Buffer.alloc(0);
      let reader: BodyReader | undefined;
      let finished = false;
      const total = setTimeout(() => fail(new UpstreamTimeoutError(`the exchange took longer than ${options.totalMs} ms`)), options.totalMs);

      const cleanUp = (): void => {
        clearTimeout(total);
        readers.delete(socket);
        socket.off('end', onEnd);
        socket.off('error', fail);
        socket.off('close', onClose);
        socket.removeAllListeners('timeout');
      };
      function fail(error: Error): void {
        if (finished) return;
        finished = true;
        cleanUp();
        socket.destroy();
        if (reader !== undefined) reader.fail(error);
        else reject(Object.assign(error, { stale: reused && received === 0 }));
      }
      /** The response has ended; `rest` is what followed it. */
      const complete = (response: ResponseHead, rest: Buffer): void => {
        finished = true;
        cleanUp();
        (reader as BodyReader).end();
        // Bytes past the response's end were never asked for: the connection is not trusted again.
        if (response.reusable && rest.length === 0) keep(key, socket);
        else socket.destroy();
      };
      const onHead = (chunk: Buffer): void => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        let response: ResponseHead | undefined;
        while (response === undefined) {
          const end = pending.indexOf(HEAD_END);
          if ((end < 0 ? pending.length : end) > options.headBytes) throw new UpstreamProtocolError(`the response head is larger than the proxy's ${options.headBytes} bytes`);
          // What waits for the rest of the head is copied: its read buffer may be read into again.
          if (end < 0) return void (pending = Buffer.from(pending));
          const parsed = parseResponseHead(pending.toString('latin1', 0, end), request.method);
          pending = pending.subarray(end + HEAD_END.length);
          // Interim answers (100 Continue, 103 Early Hints) come before the real one.
          if (parsed.status === 101) throw new UpstreamProtocolError('the upstream switched protocols, which the proxy does not relay');
          if (parsed.status >= 200) response = parsed;
        }
        const done = response;
        const reads = regions.get(socket) as RegionReads;
        reader = new BodyReader(
          socket,
          response,
          options.headBytes,
          reads,
          (rest) => complete(done, rest),
          () => {
            if (finished) return;
            finished = true;
            cleanUp();
            socket.destroy();
          },
          request.url.protocol === 'https:',
        );
        const body = reader;
        resolve({
          status: response.status,
          headers: response.headers,
          get body() {
            return body.stream();
          },
          relayTo: (sink, limit, what, onEnd) => body.relayTo(sink, limit, what, onEnd),
          discard: () => body.discard(),
        });
        reader.write(pending);
      };
      function onData(chunk: Buffer): void {
        received += chunk.length;
        try {
          if (reader === undefined) onHead(chunk);
          else reader.write(chunk);
        } catch (error) {
          fail(error as Error);
        }
      }
      function onEnd(): void {
        if (reader?.endsAtClose === true) return reader.closed();
        fail(new UpstreamProtocolError(reader === undefined ? 'the upstream closed the connection before it answered' : 'the upstream closed the connection before the response ended'));
      }
      function onClose(): void {
        fail(new UpstreamProtocolError('the connection to the upstream closed'));
      }
      readers.set(socket, onData);
      socket.once('end', onEnd);
      socket.on('error', fail);
      socket.once('close', onClose);
      socket.setTimeout(options.idleMs, () => fail(new UpstreamTimeoutError(`no answer for ${options.idleMs} ms`)));
      socket.cork();
      socket.write(head, 'latin1');
      if (request.body.length > 0) socket.write(request.body);
      socket.uncork();
      socket.resume();
    });

  return {
    async request(request) {
      const key = keyOf(request);
      const head = requestHead(request);
      const kept = reuse(key);
      if (kept !== undefined) {
        try {
          return await exchange(kept, request, head, key, true);
        } catch (error) {
          if (!((error as { stale?: boolean }).stale === true && RETRIED.has(request.method))) throw error;
        }
      }
      return exchange(await open(request), request, head, key, false);
    },
    close() {
      for (const socket of all) socket.destroy();
      idle.clear();
    },
  };
}

/** Where a body's bytes go once its consumer is known; `write` returns false when the socket should pause. */
interface BodyOut {
  write(chunk: Buffer): boolean;
  end(): void;
  fail(error: Error): void;
}

/**
 * One response's body: takes the socket's bytes after the head, hands them on to its consumer
 * (written straight into a sink, or a Readable for one that transforms them), pausing the
 * socket when the consumer is full, and calls `onComplete` with whatever followed the body
 * once its framing says it has ended. `onDestroyed` runs if the consumer gives up on the body.
 */
class BodyReader {
  private left: number;
  private readonly decoder: ChunkedDecoder | undefined;
  /**
   * Chunks read in one pass of the event loop go on as one where they sit side by side in a
   * read buffer: a TLS socket hands each 16 KiB record over on its own, and each would be a
   * write to the client (measured: about 12 chunks a push for a TLS upstream).
   */
  private held: Buffer | undefined;
  /** How many bytes from `held`'s start are held (it and the chunks right after it). */
  private heldLength = 0;
  private ended = false;
  private out: BodyOut | undefined;
  /** What arrived before the consumer attached (the head's read often holds the body's first bytes), and how it ended. */
  private queued: Buffer[] = [];
  private queuedEnd = false;
  private queuedBytes = 0;
  private failure: Error | undefined;
  private readable: Readable | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly response: ResponseHead,
    trailerBytes: number,
    private readonly reads: RegionReads,
    private readonly onComplete: (rest: Buffer) => void,
    private readonly onDestroyed: () => void,
    /** Whether to join the chunks of one pass of the event loop (a TLS upstream's records). */
    private readonly coalesce: boolean,
  ) {
    this.left = response.length;
    this.decoder = response.framing === 'chunked' ? new ChunkedDecoder(trailerBytes) : undefined;
  }

  /** Whether the body runs to the end of the connection (no framing). */
  get endsAtClose(): boolean {
    return this.response.framing === 'close';
  }

  /** The body as a Readable (made once): for a consumer that keeps views of its chunks (the scrubber). */
  stream(): Readable {
    if (this.readable !== undefined) return this.readable;
    const readable = new Readable({
      read: () => void (this.ended ? undefined : this.socket.resume()),
      destroy: (error, done) => {
        this.abandon();
        done(error);
      },
    });
    // The consumer attaches its listeners a turn later; an error before then must not end the
    // process (it finds the body destroyed, with `errored` telling why).
    readable.on('error', () => undefined);
    this.readable = readable;
    this.attach({ write: (chunk) => readable.push(chunk), end: () => void readable.push(null), fail: (error) => void readable.destroy(error) });
    return readable;
  }

  /** See UpstreamResponse.relayTo: the body's chunks go straight into the capped sink. */
  relayTo(sink: Writable, limit: number, what: string, onEnd: (end: RelayEnd) => void): void {
    // (Node's response corks its socket for the rest of the tick on each write: the head goes
    // out with the first chunk in one writev.)
    const resume = (): void => void (this.ended ? undefined : this.socket.resume());
    const stop = (failed: boolean): void => void (failed ? this.abandon() : undefined);
    this.attach(cappedSink(sink, limit, what, onEnd, { resume, stop }, (chunk) => this.reads.release(chunk)));
  }

  /** Bytes from the socket after the head. Throws UpstreamProtocolError on bad chunked framing. */
  write(chunk: Buffer): void {
    const framing = this.response.framing;
    if (framing === 'none' || (framing === 'length' && this.left === 0)) return this.onComplete(chunk);
    if (chunk.length === 0) return;
    if (framing === 'close') return this.deliver(chunk);
    if (framing === 'length') {
      const take = Math.min(this.left, chunk.length);
      this.left -= take;
      this.deliver(take === chunk.length ? chunk : chunk.subarray(0, take));
      if (this.left === 0) this.onComplete(chunk.subarray(take));
      return;
    }
    const decoder = this.decoder as ChunkedDecoder;
    for (const piece of decoder.write(chunk)) this.deliver(piece);
    if (decoder.done) this.onComplete(decoder.rest);
  }

  /** The connection ended: the end of a body without framing. */
  closed(): void {
    this.onComplete(Buffer.alloc(0));
  }

  /** Ends the body (what is held goes first). */
  end(): void {
    this.flush();
    if (this.ended) return;
    this.ended = true;
    if (this.out === undefined) this.queuedEnd = true;
    else this.out.end();
  }

  /** The exchange failed: the consumer is told (at once, or when it attaches). */
  fail(error: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.held = undefined;
    if (this.out === undefined) this.failure = error;
    else this.out.fail(error);
  }

  /** The body will not be consumed: see UpstreamResponse.discard. */
  discard(): void {
    if (!this.ended) this.abandon();
  }

  /** The consumer gave up on the body (destroyed its Readable, or its sink failed). */
  private abandon(): void {
    this.ended = true;
    this.held = undefined;
    this.onDestroyed();
  }

  private attach(out: BodyOut): void {
    this.out = out;
    if (this.failure !== undefined) return out.fail(this.failure);
    let more = true;
    for (const chunk of this.queued) more = out.write(chunk) && more;
    this.queued = [];
    this.queuedBytes = 0;
    if (this.queuedEnd) out.end();
    else if (more && !this.ended && this.socket.isPaused()) this.socket.resume();
  }

  private deliver(chunk: Buffer): void {
    // Counted as handed on at once (while the read's buffer is still current): held or queued, it is in use.
    this.reads.retain(chunk);
    // A TCP read is already as large as the socket held (up to a region): it goes on at once,
    // in the read's own callback, rather than a turn of the event loop later.
    if (!this.coalesce) return this.push(chunk);
    const held = this.held;
    if (held === undefined) {
      this.held = chunk;
      this.heldLength = chunk.length;
      setImmediate(this.flushLater);
    } else if (held.buffer === chunk.buffer && held.byteOffset + this.heldLength === chunk.byteOffset) {
      // (The view over all of them is made once, when they go on: not a Buffer per TLS record.)
      this.heldLength += chunk.length;
    } else {
      this.flush();
      this.held = chunk;
      this.heldLength = chunk.length;
    }
  }

  private readonly flushLater = (): void => this.flush();

  private flush(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    this.push(held.length === this.heldLength ? held : Buffer.from(held.buffer, held.byteOffset, this.heldLength));
  }

  private push(chunk: Buffer): void {
    if (this.ended) return;
    const out = this.out;
    if (out === undefined) {
      // Until the consumer attaches (a turn of promises away, before the socket is read again),
      // what arrives waits here. The socket is paused only once a read's worth waits: pausing
      // and resuming for every response was two system calls a request.
      this.queued.push(chunk);
      this.queuedBytes += chunk.length;
      if (this.queuedBytes >= QUEUED_BYTES) this.socket.pause();
    } else if (!out.write(chunk)) this.socket.pause();
  }
}
