// The proxy's upstream client against raw loopback servers that answer with exact bytes:
// Content-Length, chunked and close-delimited bodies, interim 1xx answers, keep-alive reuse
// (and a retry when a kept connection turns out closed), the checked address, and refusals
// of responses that could smuggle a second one. Nothing leaves 127.0.0.1.

import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { upstreamClient, type UpstreamClient } from './upstream.js';

interface RawServer {
  port: number;
  connections: number;
  /** Request heads seen, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** A server that answers each request head (and its body, by Content-Length) with `answer(n)` for the n-th request. */
async function rawServer(answer: (index: number, socket: Socket) => string | undefined): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const state: RawServer = { port: 0, connections: 0, requests: [], close: async () => undefined };
  const server: Server = createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        state.requests.push(buffered.slice(0, end + 4 + length));
        buffered = buffered.slice(end + 4 + length);
        const reply = answer(state.requests.length - 1, socket);
        if (reply !== undefined) socket.write(reply, 'latin1');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return state;
}

async function text(body: Readable): Promise<string> {
  let out = '';
  for await (const chunk of body) out += (chunk as Buffer).toString('latin1');
  return out;
}

describe('the upstream client', () => {
  const servers: RawServer[] = [];
  let client: UpstreamClient | undefined;
  const start = async (answer: (index: number, socket: Socket) => string | undefined): Promise<{ server: RawServer; client: UpstreamClient; url: (path: string) => URL }> => {
    const server = await rawServer(answer);
    servers.push(server);
    client = upstreamClient({ ca: undefined, idleMs: 2000, totalMs: 5000, headBytes: 4096 });
    // The name is resolved by the policy elsewhere; here the checked address is given.
    return { server, client, url: (path) => new URL(`http://upstream.test:${server.port}${path}`) };
  };
  afterEach(() => client?.close());
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('sends the request with Host and a Content-Length, to the checked address, and reads a Content-Length body', async () => {
    const { server, client: upstream, url } = await start(() => 'HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello');
    const response = await upstream.request({ url: url('/p?q=1'), addresses: ['127.0.0.1'], method: 'POST', headers: [['X-Probe', 'yes']], body: Buffer.from('abc') });
    expect(response.status).toBe(201);
    expect(response.headers).toEqual([['Content-Length', '5'], ['X-A', '1']]);
    expect(await text(response.body)).toBe('hello');
    expect(server.requests[0]).toBe(`POST /p?q=1 HTTP/1.1\r\nHost: upstream.test:${server.port}\r\nX-Probe: yes\r\nContent-Length: 3\r\n\r\nabc`);
  });

  it('decodes chunked bodies, skips interim answers, and reuses the connection for the next request', async () => {
    const { server, client: upstream, url } = await start((i) => (i === 0 ? 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n' : 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const first = await upstream.request({ url: url('/1'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) });
    expect(await text(first.body)).toBe('abcde');
    const second = await upstream.request({ url: url('/2'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) });
    expect(await text(second.body)).toBe('ok');
    expect(server.connections).toBe(1);
  });

  it('reads a body without framing to the end of the connection, and does not keep that connection', async () => {
    const { server, client: upstream, url } = await start((_i, socket) => {
      socket.end('HTTP/1.1 200 OK\r\n\r\nall of it');
      return undefined;
    });
    const response = await upstream.request({ url: url('/'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) });
    expect(await text(response.body)).toBe('all of it');
    await upstream.request({ url: url('/'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) }).then((r) => text(r.body));
    expect(server.connections).toBe(2);
  });

  it('retries a GET once on a fresh connection when the kept one was closed by the server', async () => {
    const { server, client: upstream, url } = await start((i, socket) => {
      if (i === 1) {
        socket.destroy();
        return undefined;
      }
      return 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx';
    });
    const request = { url: url('/'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) };
    expect(await text((await upstream.request(request)).body)).toBe('x');
    expect(await text((await upstream.request(request)).body)).toBe('x');
    expect(server.connections).toBe(2);
    // A POST is not retried: it may have been carried out.
    const post = await start((i, socket) => (i === 1 ? void socket.destroy() : 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx'));
    const postRequest = { url: post.url('/'), addresses: ['127.0.0.1'], method: 'POST', headers: [], body: Buffer.from('b') };
    await text((await post.client.request(postRequest)).body);
    await expect(post.client.request(postRequest)).rejects.toThrow(/closed/);
  });

  it('refuses a response with both framings, and a response head over its limit, naming the problem', async () => {
    const { client: upstream, url } = await start((i) => (i === 0 ? 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n' : `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(5000)}\r\n\r\n`));
    await expect(upstream.request({ url: url('/'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) })).rejects.toThrow('both Transfer-Encoding and Content-Length');
    await expect(upstream.request({ url: url('/'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) })).rejects.toThrow("the response head is larger than the proxy's 4096 bytes");
  });

  it('refuses to send a header value with a line break', async () => {
    const { server, client: upstream, url } = await start(() => 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    await expect(upstream.request({ url: url('/'), addresses: ['127.0.0.1'], method: 'GET', headers: [['X-Evil', 'a\r\nInjected: 1']], body: Buffer.alloc(0) })).rejects.toThrow('cannot be sent');
    expect(server.connections).toBe(0);
  });

  it('passes a body larger than its read buffers on byte for byte, however it arrives', async () => {
    const payload = Buffer.from(Array.from({ length: 700 * 1024 }, (_, i) => (i * 7919) % 251));
    const { client: upstream, url } = await start((_i, socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${payload.length}\r\n\r\n`);
      socket.write(payload.subarray(0, 1000));
      setTimeout(() => socket.write(payload.subarray(1000, 400_000)), 5);
      setTimeout(() => socket.write(payload.subarray(400_000)), 10);
      return undefined;
    });
    const response = await upstream.request({ url: url('/'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) });
    const chunks: Buffer[] = [];
    for await (const chunk of response.body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(payload)).toBe(true);
  });

  it('gives read buffers back only once a slow consumer has written each chunk: megabytes pass intact', async () => {
    const payload = Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 31 + (i >> 12)) % 253));
    const { client: upstream, url } = await start((_i, socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${payload.length}\r\n\r\n`);
      socket.write(payload);
      return undefined;
    });
    const response = await upstream.request({ url: url('/'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) });
    // Each write completes a moment later and copies its chunk only then: a buffer read into
    // again before the chunk was released would show here as changed bytes.
    const kept: Buffer[] = [];
    const slow = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _encoding, done) {
        setTimeout(() => {
          kept.push(Buffer.from(chunk));
          done();
        }, 1);
      },
    });
    await new Promise<void>((resolve, reject) => response.relayTo(slow, payload.length, 'the response', ({ error }) => (error ? reject(error) : resolve())));
    expect(Buffer.concat(kept).equals(payload)).toBe(true);
  });

  it('holds at most a read of a body nobody has taken yet, and a discarded body drops its connection', async () => {
    // More than the kernel's socket buffers on both sides hold.
    const payload = Buffer.alloc(24 * 1024 * 1024, 'y');
    let upstreamSocket: Socket | undefined;
    let written = false;
    const { server, client: upstream, url } = await start((i, socket) => {
      upstreamSocket = socket;
      if (i > 0) return 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${payload.length}\r\n\r\n`);
      socket.write(payload, () => (written = true));
      return undefined;
    });
    const request = { url: url('/'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) };
    const response = await upstream.request(request);
    // Not consumed for a while: the reads stop once a read buffer's worth waits, so the rest
    // stays in the upstream's socket (its writes have not all gone out).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toBe(false);
    const closed = new Promise((resolve) => upstreamSocket?.once('close', resolve));
    response.discard();
    await closed;
    // The next request goes on a new connection.
    expect(await text((await upstream.request(request)).body)).toBe('ok');
    expect(server.connections).toBe(2);
  });

  it('fails a body cut short by the upstream instead of ending it cleanly', async () => {
    const { client: upstream, url } = await start((_i, socket) => {
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort');
      return undefined;
    });
    const response = await upstream.request({ url: url('/'), addresses: ['127.0.0.1'], method: 'GET', headers: [], body: Buffer.alloc(0) });
    await expect(text(response.body)).rejects.toThrow('before the response ended');
  });
});
