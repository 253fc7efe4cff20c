// How an upstream's HTTP/1.1 response is framed (RFC 9112 §4–7): its head, and where its body
// ends. The proxy reads responses itself rather than through an HTTP client library because a
// body framed by Content-Length then passes on as the socket's own chunks, untouched — through
// undici each MiB cost the proxy about 1 ms more CPU once warm, 3 ms in a fresh proxy (its
// parser copies every byte through WebAssembly memory and hands it on through a chain of
// streams; docs/network.md §Performance has the figures).
//
// Strict where a lenient reading could let an upstream smuggle a second response: a head with
// both Transfer-Encoding and Content-Length, differing Content-Length values, folded or
// malformed header lines, and malformed chunk sizes are errors, not guesses. The body the
// client gets is always re-framed by the proxy's own server (Content-Length it states, or
// chunked it writes), never the upstream's framing passed through.

/** A response head from upstream. */
export interface ResponseHead {
  status: number;
  /** Header lines in order, names as sent. */
  headers: Array<[string, string]>;
  /** How the body ends: after `length` bytes, at a zero-size chunk, when the upstream closes, or at once. */
  framing: 'length' | 'chunked' | 'close' | 'none';
  /** For `length`: the body's size. */
  length: number;
  /** Whether the connection may carry another request once this response has ended. */
  reusable: boolean;
}

/** A response the proxy will not pass on; `message` says what was wrong. */
export class UpstreamProtocolError extends Error {
  override name = 'UpstreamProtocolError';
}

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-5]\d\d)(?: [^\r\n]*)?$/;
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([^\r\n\0]*?)[ \t]*$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,15})[ \t]*(?:;[^\r\n]*)?$/;
/** Longest chunk-size line (with its extensions) a chunked body may have. */
const CHUNK_LINE_BYTES = 4096;

/**
 * Parses one response head (without its final empty line). `method` is the request's: a HEAD
 * response has no body whatever its headers say. Throws UpstreamProtocolError.
 */
export function parseResponseHead(text: string, method: string): ResponseHead {
  const lines = text.split('\r\n');
  const statusLine = STATUS_LINE.exec(lines[0] ?? '');
  if (statusLine === null) throw new UpstreamProtocolError(`malformed status line ${JSON.stringify((lines[0] ?? '').slice(0, 100))}`);
  const minor = statusLine[1];
  const status = Number(statusLine[2]);
  const headers: Array<[string, string]> = [];
  const lengths: string[] = [];
  const codings: string[] = [];
  let close = minor === '0';
  for (const line of lines.slice(1)) {
    const header = HEADER_LINE.exec(line);
    if (header === null) throw new UpstreamProtocolError(`malformed header line ${JSON.stringify(line.slice(0, 100))}`);
    const name = header[1] as string;
    const value = header[2] as string;
    headers.push([name, value]);
    const lower = name.toLowerCase();
    if (lower === 'content-length') for (const v of value.split(',')) lengths.push(v.trim());
    else if (lower === 'transfer-encoding') for (const v of value.split(',')) codings.push(v.trim().toLowerCase());
    else if (lower === 'connection') {
      const options = value.split(',').map((v) => v.trim().toLowerCase());
      if (options.includes('close')) close = true;
      else if (minor === '0' && options.includes('keep-alive')) close = false;
    }
  }
  if (codings.length > 0 && lengths.length > 0) throw new UpstreamProtocolError('the response has both Transfer-Encoding and Content-Length');
  const noBody = method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
  if (lengths.length > 0) {
    const first = lengths[0] as string;
    if (!/^\d{1,15}$/.test(first) || lengths.some((v) => v !== first)) throw new UpstreamProtocolError(`invalid Content-Length ${JSON.stringify(lengths.join(', ').slice(0, 100))}`);
    const length = Number(first);
    return { status, headers, framing: noBody ? 'none' : 'length', length, reusable: !close };
  }
  if (noBody) return { status, headers, framing: 'none', length: 0, reusable: !close };
  if (codings.length > 0 && codings.at(-1) === 'chunked') return { status, headers, framing: 'chunked', length: 0, reusable: !close };
  // Neither (or a coding that is not chunked last): the body runs to the end of the connection.
  return { status, headers, framing: 'close', length: 0, reusable: false };
}

/**
 * Decodes a chunked body: `write` takes the socket's chunks and returns the body's bytes in
 * them (slices, no copy); `done` turns true after the last chunk and the trailers, and
 * `rest` holds whatever followed them.
 */
export class ChunkedDecoder {
  private state: 'size' | 'data' | 'data-end' | 'trailer' | 'done' = 'size';
  private line = '';
  private remaining = 0;
  private trailerBytes = 0;
  rest: Buffer = Buffer.alloc(0);

  constructor(private readonly trailerLimit: number) {}

  get done(): boolean {
    return this.state === 'done';
  }

  write(chunk: Buffer): Buffer[] {
    const body: Buffer[] = [];
    let at = 0;
    while (at < chunk.length && this.state !== 'done') {
      if (this.state === 'data') {
        const take = Math.min(this.remaining, chunk.length - at);
        body.push(chunk.subarray(at, at + take));
        at += take;
        this.remaining -= take;
        if (this.remaining === 0) this.state = 'data-end';
        continue;
      }
      // The other states read lines.
      const end = chunk.indexOf(0x0a, at);
      const piece = chunk.toString('latin1', at, end < 0 ? chunk.length : end + 1);
      at = end < 0 ? chunk.length : end + 1;
      this.line += piece;
      if (this.state === 'trailer') this.trailerBytes += piece.length;
      if (this.line.length > CHUNK_LINE_BYTES && this.state !== 'trailer') throw new UpstreamProtocolError(`a chunk-size line is longer than ${CHUNK_LINE_BYTES} bytes`);
      if (this.trailerBytes > this.trailerLimit) throw new UpstreamProtocolError(`the trailers are larger than ${this.trailerLimit} bytes`);
      if (end < 0) break;
      if (!this.line.endsWith('\r\n')) throw new UpstreamProtocolError('a bare LF in a chunked body');
      const line = this.line.slice(0, -2);
      this.line = '';
      this.lineDone(line);
    }
    if (this.state === 'done' && at < chunk.length) this.rest = chunk.subarray(at);
    return body;
  }

  private lineDone(line: string): void {
    if (this.state === 'data-end') {
      if (line !== '') throw new UpstreamProtocolError('a chunk does not end where its size says');
      this.state = 'size';
    } else if (this.state === 'size') {
      const size = CHUNK_SIZE.exec(line);
      if (size === null) throw new UpstreamProtocolError(`malformed chunk size ${JSON.stringify(line.slice(0, 100))}`);
      this.remaining = Number.parseInt(size[1] as string, 16);
      this.state = this.remaining === 0 ? 'trailer' : 'data';
    } else if (this.state === 'trailer') {
      if (line === '') this.state = 'done';
      else if (!HEADER_LINE.test(line)) throw new UpstreamProtocolError(`malformed trailer line ${JSON.stringify(line.slice(0, 100))}`);
    }
  }
}
