// The one host⇄worker channel: comlink over an endpoint, with
// - a size check on every message received (both sides): an oversized message is dropped
//   and reported, never processed;
// - typed errors across the boundary (LimitError, SandboxFsError, ... keep their class and
//   fields) instead of comlink's plain Error copies.

import * as Comlink from 'comlink';
import { fromWireError, toWireError, type WireError } from './errors.js';

let errorTransferInstalled = false;

/** Makes thrown errors cross the channel as WireErrors. Idempotent; call on both sides. */
export function installErrorTransfer(): void {
  if (errorTransferInstalled) return;
  errorTransferInstalled = true;
  const original = Comlink.transferHandlers.get('throw') as Comlink.TransferHandler<unknown, unknown>;
  Comlink.transferHandlers.set('throw', {
    canHandle: original.canHandle,
    serialize(thrown: unknown): [unknown, Transferable[]] {
      const value = (thrown as { value: unknown }).value;
      return [{ isError: false, value: { airlockWireError: toWireError(value) } }, []];
    },
    deserialize(serialized: unknown): never {
      const wire = (serialized as { value?: { airlockWireError?: WireError } }).value?.airlockWireError;
      if (wire !== undefined) throw fromWireError(wire);
      return original.deserialize(serialized) as never;
    },
  });
}

/**
 * An approximate serialized size of `value` in bytes, counting up to `limit + 1` (the walk
 * stops as soon as the limit is passed). Strings count one byte per code unit.
 */
export function messageSize(value: unknown, limit: number): number {
  let total = 0;
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= limit) {
    const item = stack.pop();
    if (item === null || item === undefined) total += 1;
    else if (typeof item === 'string') total += item.length + 4;
    else if (typeof item === 'number' || typeof item === 'boolean' || typeof item === 'bigint') total += 9;
    else if (ArrayBuffer.isView(item)) total += item.byteLength + 8;
    else if (item instanceof ArrayBuffer) total += item.byteLength + 8;
    else if (typeof item === 'object') {
      if (seen.has(item)) continue;
      seen.add(item);
      if (item instanceof Map) {
        for (const [k, v] of item) stack.push(k, v);
      } else if (Array.isArray(item)) {
        total += 4;
        for (const v of item) stack.push(v);
      } else {
        for (const [k, v] of Object.entries(item)) {
          total += k.length + 4;
          stack.push(v);
        }
      }
    } else total += 8;
  }
  return total;
}

/**
 * Wraps an endpoint so that messages larger than `limitBytes` never reach the listeners;
 * `onOversize` is told instead (the host then treats the worker as compromised).
 */
export function guardEndpoint(endpoint: Comlink.Endpoint, limitBytes: number, onOversize: (size: number) => void): Comlink.Endpoint {
  const wrapped = new Map<EventListenerOrEventListenerObject, EventListener>();
  return {
    postMessage: (message: unknown, transfer?: Transferable[]) => endpoint.postMessage(message, transfer),
    addEventListener(type: string, listener: EventListenerOrEventListenerObject) {
      const guarded: EventListener = (event: Event) => {
        const size = messageSize((event as MessageEvent).data, limitBytes);
        if (size > limitBytes) {
          onOversize(size);
          return;
        }
        if (typeof listener === 'function') listener(event);
        else listener.handleEvent(event);
      };
      wrapped.set(listener, guarded);
      endpoint.addEventListener(type, guarded);
    },
    removeEventListener(type: string, listener: EventListenerOrEventListenerObject) {
      const guarded = wrapped.get(listener);
      if (guarded !== undefined) {
        endpoint.removeEventListener(type, guarded);
        wrapped.delete(listener);
      }
    },
  };
}
