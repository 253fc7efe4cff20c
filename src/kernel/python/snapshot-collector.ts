// The host side of a Python worker booted in snapshot mode (Node's
// workers/python-snapshot-builder.ts and the browser's workers/python-browser-snapshot.ts):
// the worker runs no user code, sends its memory snapshot in parts over the channel, then
// exits. One reader for both, so the two builders cannot drift apart on the protocol.

import type { ChannelServer } from './channel.js';
import type { PythonRequest } from './protocol.js';

export type SnapshotOutcome = { ok: true; snapshot: Uint8Array } | { ok: false; reason: string };

/**
 * Collects the snapshot the worker on `channel` sends; `failed` settles with a reason if
 * the worker dies first. Anything else the worker asks for is a failure: a snapshot worker
 * has no business making kernel calls.
 */
export async function collectSnapshot(channel: ChannelServer, failed: Promise<string>): Promise<SnapshotOutcome> {
  let snapshot: Uint8Array | undefined;
  for (;;) {
    const message = await Promise.race([channel.next(), failed]);
    if (typeof message === 'string') return { ok: false, reason: message };
    if (message === undefined) return { ok: false, reason: 'the channel closed' };
    const call = message.json as PythonRequest;
    if (call.op === 'snapshotPart') {
      snapshot ??= new Uint8Array(call.total);
      snapshot.set(message.data ?? new Uint8Array(0), call.offset);
      channel.answer({ json: { ok: true } });
    } else if (call.op === 'exit' && snapshot !== undefined) {
      return { ok: true, snapshot };
    } else if (call.op === 'fatal') {
      return { ok: false, reason: call.message };
    } else {
      return { ok: false, reason: `unexpected request ${call.op}` };
    }
  }
}
