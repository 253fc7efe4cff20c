import { describe, expect, it } from 'vitest';
import { ChunkedDecoder, parseResponseHead, UpstreamProtocolError } from './response-framing.js';

const head = (...lines: string[]): string => lines.join('\r\n');

describe('parseResponseHead', () => {
  it('reads the status, the headers in order and Content-Length framing', () => {
    const parsed = parseResponseHead(head('HTTP/1.1 200 OK', 'Content-Type: text/plain', 'Content-Length: 12', 'Set-Cookie: a=1', 'Set-Cookie: b=2'), 'GET');
    expect(parsed).toEqual({ status: 200, headers: [['Content-Type', 'text/plain'], ['Content-Length', '12'], ['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2']], framing: 'length', length: 12, reusable: true });
  });

  it('frames chunked bodies, bodies to the end of the connection, and responses without a body', () => {
    expect(parseResponseHead(head('HTTP/1.1 200 OK', 'Transfer-Encoding: gzip, chunked'), 'GET')).toMatchObject({ framing: 'chunked', reusable: true });
    expect(parseResponseHead(head('HTTP/1.1 200 OK', 'Transfer-Encoding: gzip'), 'GET')).toMatchObject({ framing: 'close', reusable: false });
    expect(parseResponseHead(head('HTTP/1.1 200 OK'), 'GET')).toMatchObject({ framing: 'close', reusable: false });
    expect(parseResponseHead(head('HTTP/1.1 200 OK', 'Content-Length: 5'), 'HEAD')).toMatchObject({ framing: 'none', reusable: true });
    expect(parseResponseHead(head('HTTP/1.1 204 No Content'), 'GET')).toMatchObject({ framing: 'none' });
    expect(parseResponseHead(head('HTTP/1.1 304 Not Modified', 'Content-Length: 9'), 'GET')).toMatchObject({ framing: 'none' });
  });

  it('keeps a connection only when HTTP/1.1 without close, or HTTP/1.0 with keep-alive', () => {
    expect(parseResponseHead(head('HTTP/1.1 200 OK', 'Connection: close', 'Content-Length: 0'), 'GET').reusable).toBe(false);
    expect(parseResponseHead(head('HTTP/1.0 200 OK', 'Content-Length: 0'), 'GET').reusable).toBe(false);
    expect(parseResponseHead(head('HTTP/1.0 200 OK', 'Connection: keep-alive', 'Content-Length: 0'), 'GET').reusable).toBe(true);
  });

  it('refuses what could smuggle a second response: both framings, differing lengths, folded or malformed lines', () => {
    const refused = [
      head('HTTP/1.1 200 OK', 'Transfer-Encoding: chunked', 'Content-Length: 5'),
      head('HTTP/1.1 200 OK', 'Content-Length: 5', 'Content-Length: 6'),
      head('HTTP/1.1 200 OK', 'Content-Length: 5, 6'),
      head('HTTP/1.1 200 OK', 'Content-Length: -1'),
      head('HTTP/1.1 200 OK', 'Content-Length: 0x10'),
      head('HTTP/1.1 200 OK', 'X-A: 1', ' folded'),
      head('HTTP/1.1 200 OK', 'Bad Name: 1'),
      head('HTTP/1.1 200 OK', 'X-Nul: a\0b'),
      head('HTTP/2 200'),
      head('HTTP/1.1 20 OK'),
      head('HTTP/1.1 099 Odd'),
      head('HTTP/1.1 600 Odd'),
      'garbage',
    ];
    for (const text of refused) expect(() => parseResponseHead(text, 'GET'), JSON.stringify(text)).toThrow(UpstreamProtocolError);
    // The same length twice is one length.
    expect(parseResponseHead(head('HTTP/1.1 200 OK', 'Content-Length: 5', 'Content-Length: 5'), 'GET').length).toBe(5);
  });
});

describe('ChunkedDecoder', () => {
  const decode = (pieces: string[]): { body: string; done: boolean; rest: string } => {
    const decoder = new ChunkedDecoder(1024);
    let body = '';
    for (const piece of pieces) for (const part of decoder.write(Buffer.from(piece, 'latin1'))) body += part.toString('latin1');
    return { body, done: decoder.done, rest: decoder.rest.toString('latin1') };
  };

  it('decodes chunks split anywhere, with extensions and trailers, and keeps what follows', () => {
    const wire = '5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\nNEXT';
    expect(decode([wire])).toEqual({ body: 'hello world', done: true, rest: 'NEXT' });
    expect(decode(wire.slice(0, -'NEXT'.length).split(''))).toEqual({ body: 'hello world', done: true, rest: '' });
    expect(decode(['5\r\nhel'])).toEqual({ body: 'hel', done: false, rest: '' });
  });

  it('refuses malformed framing: a bad size, a chunk longer than its size, a bare LF, huge lines and trailers', () => {
    const refused = ['zz\r\n', '5\r\nhello!\r\n', '5\nhello\r\n', '-1\r\n', `${'1'.repeat(5000)}\r\n`, `0\r\n${'X: y\r\n'.repeat(300)}\r\n`, '0\r\nnot a header\r\n\r\n'];
    for (const wire of refused) expect(() => decode([wire]), JSON.stringify(wire.slice(0, 40))).toThrow(UpstreamProtocolError);
  });
});
