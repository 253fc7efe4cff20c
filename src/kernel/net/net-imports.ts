// The `airlock` network imports (docs/abi.md, "Network"). A request leaves the sandbox only
// as a message to the host; the process waits (an external wait) for the host's answer.
//
// Wire format, to keep programs free of JSON: the request is `METHOD URL\n`, header lines
// `Name: value\n`, an empty line, then the body bytes. The response head is
// `STATUS REASON\nURL\n` followed by header lines.

import { Errno, fail } from '../errno.js';
import { Blocker } from '../proc/blocker.js';
import type { Process } from '../proc/process.js';
import type { SyscallResult } from '../wasi/asyncify.js';
import type { ProcessMemory } from '../wasi/process-memory.js';
import type { SyscallGate } from '../wasi/syscall-gate.js';
import type { NetFailure, NetHead, NetRequest } from '../../protocol/network.js';

export const NET_FLAG_FOLLOW_REDIRECTS = 1;
const MAX_REQUEST_HEAD = 64 * 1024;

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
  waiters: Blocker[];
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
    for (const waiter of exchange.waiters.splice(0)) waiter.wake();
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

  private waitFor(exchange: Exchange): Blocker {
    const blocker = new Blocker('external', 'network response');
    exchange.waiters.push(blocker);
    blocker.onSettle(() => {
      const index = exchange.waiters.indexOf(blocker);
      if (index >= 0) exchange.waiters.splice(index, 1);
    });
    return blocker;
  }

  private awaitHead(exchange: Exchange): NetHead | Blocker {
    return exchange.head ?? this.waitFor(exchange);
  }

  /** The next piece of body (at most `max` bytes), empty at the end, or a wait. */
  private nextPiece(exchange: Exchange, max: number): Uint8Array | Blocker {
    for (;;) {
      const chunk = exchange.body[exchange.chunk];
      if (chunk === undefined) return exchange.complete ? new Uint8Array(0) : this.waitFor(exchange);
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

  // ---- the same operations as a JS API (ProcessSyscalls: runtimes that are not wasm) ----

  /** Hands `request` to the host for `process`; returns the handle. */
  start(process: Process, request: NetRequest): number {
    const handle = this.nextHandle++;
    this.exchanges.set(handle, { owner: process, head: undefined, body: [], chunk: 0, offset: 0, complete: false, waiters: [] });
    this.send(handle, request);
    return handle;
  }

  /** The response head, or a wait for it. */
  headOf(process: Process, handle: number): NetHead | Blocker {
    return this.awaitHead(this.exchange(process, handle));
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

  imports(process: Process, memory: ProcessMemory, gate: SyscallGate, defaultTimeoutMs: () => number): Record<string, (...args: never[]) => SyscallResult> {
    return {
      net_request: (requestPtr: number, requestLength: number, flags: number, timeoutMs: number, handlePtr: number) => {
        const request = parseRequest(memory.slice(requestPtr, requestLength), flags, timeoutMs > 0 ? timeoutMs : defaultTimeoutMs());
        const handle = this.nextHandle++;
        this.exchanges.set(handle, { owner: process, head: undefined, body: [], chunk: 0, offset: 0, complete: false, waiters: [] });
        this.send(handle, request);
        memory.setU32(handlePtr, handle);
        return Errno.SUCCESS;
      },
      net_response: (handle: number, bufPtr: number, capacity: number, lengthPtr: number): SyscallResult => {
        const exchange = this.exchange(process, handle);
        return gate.retrying(
          () => this.awaitHead(exchange),
          (reply) => {
            if (!reply.ok) return FAILURE_ERRNO[reply.failure];
            const head = new TextEncoder().encode(
              `${reply.status} ${reply.statusText}\n${reply.url}\n${reply.headers.map(([k, v]) => `${k}: ${v}\n`).join('')}`,
            );
            memory.setU32(lengthPtr, head.length);
            if (head.length > capacity) return Errno.NOBUFS;
            memory.slice(bufPtr, head.length).set(head);
            return Errno.SUCCESS;
          },
        );
      },
      net_read: (handle: number, bufPtr: number, capacity: number, nreadPtr: number): SyscallResult => {
        const exchange = this.exchange(process, handle);
        if (exchange.head !== undefined && !exchange.head.ok) return FAILURE_ERRNO[exchange.head.failure];
        return gate.retrying(
          () => this.nextPiece(exchange, capacity),
          (piece) => {
            memory.slice(bufPtr, piece.length).set(piece);
            memory.setU32(nreadPtr, piece.length);
            return Errno.SUCCESS;
          },
        );
      },
      net_error: (handle: number, bufPtr: number, capacity: number, lengthPtr: number) => {
        const exchange = this.exchange(process, handle);
        const message = new TextEncoder().encode(exchange.head !== undefined && !exchange.head.ok ? exchange.head.message : '');
        const count = Math.min(message.length, capacity);
        memory.slice(bufPtr, count).set(message.subarray(0, count));
        memory.setU32(lengthPtr, count);
        return Errno.SUCCESS;
      },
      net_close: (handle: number) => {
        this.exchange(process, handle);
        this.exchanges.delete(handle);
        return Errno.SUCCESS;
      },
    };
  }
}

/** The errno for a failure kind (curl's exit codes map from these, docs/abi.md). */
export function netFailureErrno(failure: NetFailure): number {
  return FAILURE_ERRNO[failure];
}

function parseRequest(bytes: Uint8Array, flags: number, timeoutMs: number): NetRequest {
  let headEnd = -1;
  for (let i = 0; i + 1 < Math.min(bytes.length, MAX_REQUEST_HEAD); i++) {
    if (bytes[i] === 10 && bytes[i + 1] === 10) {
      headEnd = i;
      break;
    }
  }
  if (headEnd < 0) fail(Errno.INVAL, 'malformed network request');
  const lines = new TextDecoder().decode(bytes.subarray(0, headEnd)).split('\n');
  const first = lines.shift() ?? '';
  const space = first.indexOf(' ');
  if (space <= 0) fail(Errno.INVAL, 'malformed request line');
  const headers: Array<[string, string]> = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) fail(Errno.INVAL, 'malformed header line');
    headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  const body = bytes.subarray(headEnd + 2);
  return {
    method: first.slice(0, space),
    url: first.slice(space + 1),
    headers,
    body: body.length > 0 ? body.slice() : undefined,
    followRedirects: (flags & NET_FLAG_FOLLOW_REDIRECTS) !== 0,
    maxRedirects: 20,
    timeoutMs,
  };
}
