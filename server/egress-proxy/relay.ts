// Relaying a response body from upstream to the client, counted and capped. A hand-written
// pump rather than stream.pipeline through Transforms: each Transform is another pass through
// JS per chunk, and pipeline's teardown builds an AbortError and a premature-close error (with
// their stack traces) for every request that ends normally — together a good part of the
// proxy's cost per small request.

import type { Readable, Writable } from 'node:stream';

export interface RelayEnd {
  /** Body bytes passed to the client. */
  bytes: number;
  /** Why the relay stopped early (the cap, an upstream or client error), if it did. */
  error?: Error;
}

/**
 * Writes `source` into `sink` with backpressure, at most `limit` bytes (`what` names the body
 * in the error); calls `onEnd` once. On any failure both sides are destroyed: a client never
 * gets a silently shortened body that looks complete. `written`, if given, is told each chunk
 * once the sink is done with it (its read buffer may then be read into again).
 */
export function relay(source: Readable, sink: Writable, limit: number, what: string, onEnd: (end: RelayEnd) => void, written?: (chunk: Buffer) => void): void {
  let bytes = 0;
  let ended = false;
  const finish = (error?: Error): void => {
    if (ended) return;
    ended = true;
    source.off('data', onData);
    sink.off('drain', onDrain);
    if (error !== undefined) {
      source.destroy();
      sink.destroy();
    }
    onEnd(error === undefined ? { bytes } : { bytes, error });
  };
  // One write callback for every chunk (a sink calls back in write order): the oldest chunk is done.
  const writing: Buffer[] = [];
  const onWritten =
    written === undefined
      ? undefined
      : (): void => {
          const chunk = writing.shift();
          if (chunk !== undefined) written(chunk);
        };
  const onData = (chunk: Buffer): void => {
    bytes += chunk.length;
    if (bytes > limit) return finish(new Error(`${what} is larger than the proxy's ${limit} bytes`));
    if (onWritten !== undefined) writing.push(chunk);
    if (!sink.write(chunk, onWritten)) source.pause();
  };
  const onDrain = (): void => void source.resume();
  if (source.destroyed) return finish(source.errored ?? new Error(`${what} ended before it could be relayed`));
  source.on('data', onData);
  sink.on('drain', onDrain);
  source.once('end', () => sink.end(() => finish()));
  source.once('error', (error) => finish(error));
  sink.once('error', (error) => finish(error));
  sink.once('close', () => {
    if (!sink.writableFinished) finish(new Error('the client closed the connection before the response ended'));
  });
}
