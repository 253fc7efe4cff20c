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

/** The sink's side of a relay: what a source hands its chunks and its end to. */
export interface CappedSink {
  /** Writes a chunk; false when the source should pause until told to resume. Past the cap, fails the relay instead. */
  write(chunk: Buffer): boolean;
  /** The source has ended: `sink` is ended, then the relay is over. */
  end(): void;
  /** The source failed: both sides are destroyed. */
  fail(error: Error): void;
}

/**
 * Counts and caps what a source writes into `sink` (at most `limit` bytes; `what` names the
 * body in the error) and calls `onEnd` once. On any failure both sides are destroyed (`stop`
 * is told whether the source must be): a client never gets a silently shortened body that
 * looks complete. `resume` is called when the sink has drained; `written`, if given, is told
 * each chunk once the sink is done with it (its read buffer may then be read into again).
 */
export function cappedSink(sink: Writable, limit: number, what: string, onEnd: (end: RelayEnd) => void, source: { resume(): void; stop(failed: boolean): void }, written?: (chunk: Buffer) => void): CappedSink {
  let bytes = 0;
  let ended = false;
  const finish = (error?: Error): void => {
    if (ended) return;
    ended = true;
    sink.off('drain', onDrain);
    source.stop(error !== undefined);
    if (error !== undefined) sink.destroy();
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
  const onDrain = (): void => source.resume();
  sink.on('drain', onDrain);
  sink.once('error', (error: Error) => finish(error));
  sink.once('close', () => {
    if (!sink.writableFinished) finish(new Error('the client closed the connection before the response ended'));
  });
  return {
    write(chunk) {
      bytes += chunk.length;
      if (bytes > limit) {
        finish(new Error(`${what} is larger than the proxy's ${limit} bytes`));
        return false;
      }
      if (onWritten !== undefined) writing.push(chunk);
      return sink.write(chunk, onWritten);
    },
    end: () => void sink.end(() => finish()),
    fail: (error) => finish(error),
  };
}

/** Writes `source` into `sink` with backpressure, counted and capped as cappedSink says. */
export function relay(source: Readable, sink: Writable, limit: number, what: string, onEnd: (end: RelayEnd) => void, written?: (chunk: Buffer) => void): void {
  const onData = (chunk: Buffer): void => {
    if (!capped.write(chunk)) source.pause();
  };
  const stop = (failed: boolean): void => {
    source.off('data', onData);
    if (failed) source.destroy();
  };
  const capped = cappedSink(sink, limit, what, onEnd, { resume: () => void source.resume(), stop }, written);
  if (source.destroyed) return capped.fail(source.errored ?? new Error(`${what} ended before it could be relayed`));
  source.on('data', onData);
  source.once('end', () => capped.end());
  source.once('error', (error) => capped.fail(error));
}
