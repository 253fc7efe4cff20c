// Scrubbing of echoed secrets in a streamed body (Node: the server's gateway, the egress proxy).

import { Transform } from 'node:stream';
import { echoes, replaceAll, type SecretBinding } from './secrets.js';

/**
 * A stream that replaces echoed secrets in a body as it passes, including one split across
 * chunks: it holds back the last (longest form − 1) bytes until the next chunk or the end.
 */
export function scrubStream(bindings: readonly SecretBinding[] | undefined): Transform {
  const forms = echoes(bindings ?? []);
  const keep = Math.max(0, ...forms.map((f) => f.find.length - 1));
  let pending: Buffer = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (forms.length === 0) return done(null, chunk);
      const joined = replaceAll(Buffer.concat([pending, chunk]), forms);
      const cut = Math.max(0, joined.length - keep);
      pending = joined.subarray(cut);
      done(null, joined.subarray(0, cut));
    },
    flush(done) {
      done(null, pending.length > 0 ? pending : null);
    },
  });
}
