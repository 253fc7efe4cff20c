// A process's network calls. The host decides and performs every request (its policy engine,
// docs/abi.md "Network"); the core only hands a request over, under the process's deadline,
// and waits for the answer's parts. Reached as `Syscalls.net`, so every ABI (the `airlock`
// wasm module, Python's channel, the package fetcher) means the same by each call.

import { retry, type Waiting } from '../fd/blocker.js';
import type { NetClient } from '../net/net-client.js';
import type { Process } from '../proc/process.js';
import type { NetHead, NetRequest } from '../../protocol/network.js';

/** A network request as a process asks for it (the timeout may be left to the core). */
export type NetRequestSpec = Omit<NetRequest, 'timeoutMs' | 'maxRedirects'> & { timeoutMs?: number };

const MAX_REDIRECTS = 20;

/** What the network calls need of the process's other calls. */
export interface NetCallsCaller {
  /** The check at the start of every call (a pending kill, the deadline). */
  enter(): void;
  /** Milliseconds left before the run's deadline, if it has one. */
  deadlineRemaining(): number | undefined;
}

export class NetCalls {
  constructor(
    private readonly net: NetClient,
    /** The run timeout, for requests made when there is no deadline. */
    private readonly defaultTimeoutMs: number,
    private readonly process: Process,
    private readonly caller: NetCallsCaller,
  ) {}

  /** Hands `request` to the host; returns a handle for the answer. */
  request(request: NetRequestSpec): number {
    this.caller.enter();
    const timeoutMs = request.timeoutMs !== undefined && request.timeoutMs > 0 ? request.timeoutMs : Math.floor(this.caller.deadlineRemaining() ?? this.defaultTimeoutMs);
    return this.net.start(this.process, { ...request, maxRedirects: MAX_REDIRECTS, timeoutMs });
  }

  /** Waits for the answer's head (a failure is a head with `ok: false`). */
  response(handle: number): Waiting<NetHead> {
    this.caller.enter();
    return retry(() => this.net.headOf(this.process, handle));
  }

  /** The next piece of the body (at most `max` bytes); empty at the end. Fails with the request's errno. */
  read(handle: number, max: number): Waiting<Uint8Array> {
    this.caller.enter();
    return retry(() => this.net.bodyOf(this.process, handle, max));
  }

  /** The host's explanation of a failed request. */
  error(handle: number): string {
    this.caller.enter();
    return this.net.errorOf(this.process, handle);
  }

  close(handle: number): void {
    this.caller.enter();
    this.net.release(this.process, handle);
  }
}
