// The checks a sandbox's request headers pass before any enforcement point sends them: each
// name a token, no CR, LF or NUL in a value (header injection), and the whole head within
// REQUEST_HEADER_BYTES (a huge head is refused here with the limit named, rather than by
// whatever the far side answers). The host checks them; the server's gateway again.

/** The most bytes of request headers (names, values and their `: ` and CRLF) a request may carry. */
export const REQUEST_HEADER_BYTES = 32 * 1024;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// (Runs in the browser host too: no Buffer.)
const encoder = new TextEncoder();

/** Why these headers may not be sent (`tooLarge`: only their size), or undefined when they may. */
export function requestHeadersProblem(headers: ReadonlyArray<readonly [string, string]>, limit: number = REQUEST_HEADER_BYTES): { message: string; tooLarge: boolean } | undefined {
  let bytes = 0;
  for (const [name, value] of headers) {
    if (!HEADER_NAME.test(name) || /[\r\n\0]/.test(value)) return { tooLarge: false, message: `invalid request header ${JSON.stringify(name.slice(0, 100))}: a name must be a token and a value must not hold CR, LF or NUL` };
    bytes += encoder.encode(name).length + encoder.encode(value).length + 4;
  }
  if (bytes > limit) return { tooLarge: true, message: `the request headers are ${bytes} bytes, more than the limit of ${limit} bytes` };
  return undefined;
}
