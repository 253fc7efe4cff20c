// The channel between the host and a sandbox child process in Node: length-prefixed frames
// of V8-serialized messages over a socket (the child's fd 3). The length is checked before a
// frame is read, so an oversized message from the untrusted side is refused before it takes
// any memory (Node's own IPC channel has no such limit).

import { nextTick } from 'node:process';
import type { Duplex } from 'node:stream';
import { deserialize, serialize } from 'node:v8';
import type * as Comlink from 'comlink';

export interface FramedEndpoint extends Comlink.Endpoint {
  close(): void;
}

/**
 * A comlink endpoint over `stream`. Frames above `limitBytes` make the reader stop and call
 * `onOversize`; nothing more is read from that stream.
 */
export function framedEndpoint(stream: Duplex, limitBytes: number, onOversize: (size: number) => void): FramedEndpoint {
  const listeners = new Set<EventListenerOrEventListenerObject>();
  let buffered: Buffer[] = [];
  let bufferedBytes = 0;
  let expected = -1;
  let stopped = false;
  let outgoing: Buffer[] = [];

  const flush = (): void => {
    const frames = outgoing;
    outgoing = [];
    if (!stopped && frames.length > 0) stream.write(Buffer.concat(frames));
  };

  const dispatch = (data: unknown): void => {
    const event = { data } as MessageEvent;
    for (const listener of [...listeners]) {
      if (typeof listener === 'function') listener(event);
      else listener.handleEvent(event);
    }
  };

  const take = (count: number): Buffer => {
    const all = buffered.length === 1 ? (buffered[0] as Buffer) : Buffer.concat(buffered, bufferedBytes);
    const head = all.subarray(0, count);
    const rest = all.subarray(count);
    buffered = rest.length > 0 ? [rest] : [];
    bufferedBytes = rest.length;
    return head;
  };

  stream.on('data', (chunk: Buffer) => {
    if (stopped) return;
    buffered.push(chunk);
    bufferedBytes += chunk.length;
    for (;;) {
      if (expected < 0) {
        if (bufferedBytes < 4) return;
        expected = take(4).readUInt32LE(0);
        if (expected > limitBytes) {
          stopped = true;
          buffered = [];
          onOversize(expected);
          return;
        }
      }
      if (bufferedBytes < expected) return;
      const frame = take(expected);
      expected = -1;
      dispatch(deserialize(frame));
    }
  });

  return {
    postMessage(message: unknown) {
      const body = serialize(message);
      const header = Buffer.alloc(4);
      header.writeUInt32LE(body.length, 0);
      outgoing.push(header, body);
      // Frames posted in one turn (a run's last output and its reply, posted from the same
      // run of microtasks) leave in one write, right after that turn: not a loop iteration
      // later (setImmediate), where the child would first make its spare instances
      // (abi/wasm/wasm-program.ts) and the reply would wait ~0.3 ms behind them. Imported,
      // not the global: the child's hardened realm has no `process`.
      if (outgoing.length === 2) nextTick(flush);
    },
    addEventListener(_type: string, listener: EventListenerOrEventListenerObject) {
      listeners.add(listener);
    },
    removeEventListener(_type: string, listener: EventListenerOrEventListenerObject) {
      listeners.delete(listener);
    },
    close() {
      stopped = true;
      listeners.clear();
      stream.destroy();
    },
  };
}
