// Network requests of the sandbox's processes. A request leaves the sandbox only as a
// message to the host (whose policy decides and which performs it); the process waits (an
// external wait) for the host's answer, which arrives through deliverHead/deliverBody.
// Which errno each kind of failure is lives here too (docs/abi.md, "Network").

import { Errno, fail } from '../errno.js';
import { WaitQueue, type Blocker } from '../fd/blocker.js';
import type { Process } from '../proc/process.js';
import type { NetFailure, NetHead, NetRequest } from '../../protocol/network.js';

const FAILURE_ERRNO: Record<NetFailure, number> = {
  refused: Errno.CONNREFUSED,
  'bad-url': Errno.INVAL,
  resolve: Errno.NOENT,
  timeout: Errno.TIMEDOUT,
  'too-large': Errno.FBIG,
  'too-many-redirects': Errno.LOOP,
  failed: Errno.PIPE,
};

interface Exchange {
  owner: Process;
  head: NetHead | undefined;
  body: Uint8Array[];
  /** Index of the chunk being read and the offset in it. */
  chunk: number;
  offset: number;
  complete: boolean;
  waiters: WaitQueue;
}

/** Hands requests to the host; the host answers through `deliver`. */
export class NetClient {
  private readonly exchanges = new Map<number, Exchange>();
  private nextHandle = 1;

  constructor(private readonly send: (id: number, request: NetRequest) => void) {}

  deliverHead(id: number, head: NetHead): void {
    const exchange = this.exchanges.get(id);
    if (exchange === undefined || exchange.head !== undefined) return;
    exchange.head = head;
    if (!head.ok) exchange.complete = true;
    this.wake(exchange);
  }

  deliverBody(id: number, chunk: Uint8Array, done: boolean): void {
    const exchange = this.exchanges.get(id);
    if (exchange === undefined || exchange.complete) return;
    if (chunk.length > 0) exchange.body.push(chunk);
    exchange.complete = done;
    this.wake(exchange);
  }

  private wake(exchange: Exchange): void {
    exchange.waiters.wakeAll();
  }

  /** Drops the exchanges of an exited process. */
  forget(process: Process): void {
    for (const [id, exchange] of this.exchanges) if (exchange.owner === process) this.exchanges.delete(id);
  }

  private exchange(process: Process, handle: number): Exchange {
    const exchange = this.exchanges.get(handle);
    if (exchange === undefined || exchange.owner !== process) fail(Errno.BADF, 'no such network request');
    return exchange;
  }

  /** The next piece of body (at most `max` bytes), empty at the end, or a wait. */
  private nextPiece(exchange: Exchange, max: number): Uint8Array | Blocker {
    for (;;) {
      const chunk = exchange.body[exchange.chunk];
      if (chunk === undefined) return exchange.complete ? new Uint8Array(0) : exchange.waiters.wait();
      if (exchange.offset < chunk.length) {
        const piece = chunk.subarray(exchange.offset, exchange.offset + max);
        exchange.offset += piece.length;
        return piece;
      }
      exchange.body[exchange.chunk] = new Uint8Array(0);
      exchange.chunk += 1;
      exchange.offset = 0;
    }
  }

  /** Hands `request` to the host for `process`; returns the handle. */
  start(process: Process, request: NetRequest): number {
    const handle = this.nextHandle++;
    this.exchanges.set(handle, { owner: process, head: undefined, body: [], chunk: 0, offset: 0, complete: false, waiters: new WaitQueue('external', 'network response') });
    this.send(handle, request);
    return handle;
  }

  /** The response head, or a wait for it. */
  headOf(process: Process, handle: number): NetHead | Blocker {
    const exchange = this.exchange(process, handle);
    return exchange.head ?? exchange.waiters.wait();
  }

  /** The host's explanation of a failed request ('' when it did not fail). */
  errorOf(process: Process, handle: number): string {
    const head = this.exchange(process, handle).head;
    return head !== undefined && !head.ok ? head.message : '';
  }

  /** The next body piece (empty at the end), or a wait; fails with the request's errno. */
  bodyOf(process: Process, handle: number, max: number): Uint8Array | Blocker {
    const exchange = this.exchange(process, handle);
    if (exchange.head !== undefined && !exchange.head.ok) fail(FAILURE_ERRNO[exchange.head.failure], exchange.head.message);
    return this.nextPiece(exchange, max);
  }

  release(process: Process, handle: number): void {
    this.exchange(process, handle);
    this.exchanges.delete(handle);
  }
}

/** The errno for a failure kind (curl's exit codes map from these, docs/abi.md). */
export function netFailureErrno(failure: NetFailure): number {
  return FAILURE_ERRNO[failure];
}
