// The host's side of extension calls (docs/extensions.md). The worker says "NAME was
// called"; it is not trusted, so the host decides here, from its own registry and its own
// copy of the tool allowlist, whether anything runs at all, and enforces each extension's
// limits itself: the stdin cap as the handler pulls, the output cap as it writes, the
// timeout with its own clock. Every call, answered or refused, is an audit event.

import type { KernelApi } from '../../protocol/messages.js';
import { EXTENSION_LIMITS } from '../../protocol/limits.js';
import { concatBytes } from '../../protocol/bytes.js';
import type { AuditDraft } from '../../protocol/audit/schema.js';
import type { ExtensionCall, ExtensionInput, ExtensionOutput, ExtensionResult, ResolvedExtension } from './spec.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Exit status of a call cut at its timeout (as timeout(1) and the kernel's deadline). */
export const EXTENSION_TIMEOUT_STATUS = 124;

type ExtensionApi = Pick<KernelApi, 'extensionRead' | 'extensionWrite' | 'extensionExit'>;

/** How a call ended, for its audit event. */
type Outcome = 'ok' | 'failed' | 'error' | 'timeout' | 'truncated' | 'ended';

/** Thrown by `stdin` when the command gives the handler more than maxStdinBytes. */
export class ExtensionStdinLimitError extends Error {
  constructor(
    readonly limit: number,
    name: string,
  ) {
    super(`stdin is over ${limit} bytes (maxStdinBytes of extension ${name})`);
    this.name = 'ExtensionStdinLimitError';
  }
}

interface ActiveCall {
  controller: AbortController;
}

export class ExtensionHost {
  private readonly byName: Map<string, ResolvedExtension>;
  private readonly active = new Map<number, ActiveCall>();

  constructor(
    extensions: readonly ResolvedExtension[],
    private readonly options: {
      /** The host's own copy of the allowlist (the worker's may have been tampered with). */
      allowedTools: readonly string[] | undefined;
      /** Where its events go (a session's audit, or the server's store). */
      audit: { emit(draft: AuditDraft): void };
      /** The run in progress, for audit events. */
      runId: () => number | null;
    },
  ) {
    this.byName = new Map(extensions.map((extension) => [extension.name, extension]));
  }

  /** What the worker is told at init: names and descriptions, nothing else. */
  get declarations(): Array<{ name: string; description: string }> {
    return [...this.byName.values()].map(({ name, description }) => ({ name, description }));
  }

  /** The worker says the call's command ended on its side: stop its handler. */
  ended(callId: number): void {
    this.active.get(callId)?.controller.abort(new Error('the command ended in the sandbox'));
  }

  /** Answers the worker's `extension-call` (untrusted: every field is checked); never rejects. */
  async call(api: ExtensionApi, event: { callId: number; name: string; args: string[]; env: Record<string, string>; cwd: string; stdinIsTerminal?: boolean }): Promise<void> {
    const runId = this.options.runId();
    const wellFormed = isWellFormed(event);
    const extension = wellFormed ? this.byName.get(event.name) : undefined;
    const refusal =
      !wellFormed ? 'the call is malformed'
      : extension === undefined ? 'no extension of that name is registered'
      : this.options.allowedTools !== undefined && !this.options.allowedTools.includes(event.name) ? "not allowed by this sandbox's tool allowlist"
      : this.active.size >= EXTENSION_LIMITS.maxConcurrentCalls ? `${EXTENSION_LIMITS.maxConcurrentCalls} extension calls are running already (maxConcurrentCalls)`
      : undefined;
    if (extension === undefined || refusal !== undefined) {
      const name = typeof event.name === 'string' ? event.name.slice(0, 256) : '';
      this.options.audit.emit({ type: 'extension.refused', runId, name, reason: refusal ?? '' });
      if (typeof event.callId !== 'number') return;
      await answerQuietly(async () => {
        await api.extensionWrite(event.callId, 'stderr', encoder.encode(`airlock: ${name}: ${refusal}\n`));
        await api.extensionExit(event.callId, extension === undefined ? 127 : 126);
      });
      return;
    }
    const started = performance.now();
    const controller = new AbortController();
    this.active.set(event.callId, { controller });
    const call = new CallIo(api, event.callId, extension, controller.signal);
    let status: number;
    let outcome: Outcome;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const handled = Promise.resolve().then(() => extension.handler(call.view(event)));
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), extension.timeoutMs);
      });
      const aborted = new Promise<'ended'>((resolve) => controller.signal.addEventListener('abort', () => resolve('ended'), { once: true }));
      const result = await Promise.race([handled, timedOut, aborted]);
      if (result === 'ended') {
        status = 1;
        outcome = 'ended';
      } else if (result === 'timeout') {
        controller.abort(new Error(`timed out after ${extension.timeoutMs} ms`));
        call.close();
        await call.note(`${extension.name}: timed out after ${extension.timeoutMs} ms (timeoutMs)\n`);
        status = EXTENSION_TIMEOUT_STATUS;
        outcome = 'timeout';
      } else {
        status = await call.finish(result ?? undefined);
        outcome = status === 0 ? 'ok' : 'failed';
      }
      handled.catch(() => undefined);
    } catch (error) {
      call.close();
      await call.note(`${extension.name}: ${error instanceof Error ? error.message : String(error)}\n`);
      status = 1;
      outcome = 'error';
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      this.active.delete(event.callId);
      // Over for the sandbox: whatever the handler started (a request, a child process) stops.
      if (!controller.signal.aborted) controller.abort(new Error('the call is over'));
    }
    if (call.truncated && outcome !== 'ended') {
      await call.note(`${extension.name}: output truncated at ${extension.maxOutputBytes} bytes (maxOutputBytes)\n`);
      if (outcome === 'ok' || outcome === 'failed') outcome = 'truncated';
    }
    if (outcome !== 'ended') await answerQuietly(() => api.extensionExit(event.callId, status, call.takeStaged()));
    this.options.audit.emit({
      type: 'extension.called',
      runId,
      name: extension.name,
      exitCode: status,
      durationMs: performance.now() - started,
      outcome,
      stdinBytes: call.stdinBytes,
      outputBytes: call.outputBytes,
    });
  }
}

/** The handler's view of one call, with the caps counted here. */
class CallIo {
  stdinBytes = 0;
  outputBytes = 0;
  truncated = false;
  private closed = false;
  private stdinEnded = false;

  constructor(
    private readonly api: ExtensionApi,
    private readonly callId: number,
    private readonly extension: ResolvedExtension,
    private readonly signal: AbortSignal,
  ) {}

  view(event: { args: string[]; env: Record<string, string>; cwd: string; stdinIsTerminal?: boolean }): ExtensionCall {
    return {
      name: this.extension.name,
      args: [...event.args],
      env: { ...event.env },
      cwd: event.cwd,
      stdin: this.input(event.stdinIsTerminal === true),
      stdout: this.output('stdout'),
      stderr: this.output('stderr'),
      signal: this.signal,
    };
  }

  /** No more of the handler's output reaches the sandbox (after a timeout or a throw). */
  close(): void {
    this.closed = true;
  }

  /** The next piece of stdin, or undefined at its end. */
  private async readPiece(): Promise<Uint8Array | undefined> {
    if (this.stdinEnded) return undefined;
    this.signal.throwIfAborted();
    const room = this.extension.maxStdinBytes - this.stdinBytes;
    // One byte past the cap tells "exactly the cap" from "more than the cap".
    const piece = await this.api.extensionRead(this.callId, Math.min(EXTENSION_LIMITS.chunkBytes, room + 1));
    if (piece.length === 0) {
      this.stdinEnded = true;
      return undefined;
    }
    this.stdinBytes += piece.length;
    if (this.stdinBytes > this.extension.maxStdinBytes) {
      this.stdinEnded = true;
      this.stdinBytes = this.extension.maxStdinBytes;
      throw new ExtensionStdinLimitError(this.extension.maxStdinBytes, this.extension.name);
    }
    return piece;
  }

  private input(isTerminal: boolean): ExtensionInput {
    const read = (): Promise<Uint8Array | undefined> => this.readPiece();
    const bytes = async (): Promise<Uint8Array> => {
      const pieces: Uint8Array[] = [];
      for (let piece = await read(); piece !== undefined; piece = await read()) pieces.push(piece);
      return pieces.length === 1 ? (pieces[0] as Uint8Array) : concatBytes(pieces);
    };
    return {
      isTerminal,
      async *[Symbol.asyncIterator]() {
        for (let piece = await read(); piece !== undefined; piece = await read()) yield piece;
      },
      bytes,
      text: async () => decoder.decode(await bytes()),
    };
  }

  private output(stream: 'stdout' | 'stderr'): ExtensionOutput {
    return { write: (data) => this.write(stream, typeof data === 'string' ? encoder.encode(data) : data) };
  }

  /** What of `data` fits under maxOutputBytes (stdout and stderr together), counted. */
  private keep(data: Uint8Array): Uint8Array {
    const room = this.extension.maxOutputBytes - this.outputBytes;
    if (data.length > room) this.truncated = true;
    const kept = data.length > room ? data.subarray(0, room) : data;
    this.outputBytes += kept.length;
    return kept;
  }

  /** Writes the handler's bytes up to maxOutputBytes. */
  private async write(stream: 'stdout' | 'stderr', data: Uint8Array): Promise<void> {
    if (this.closed) return;
    this.signal.throwIfAborted();
    await this.send(stream, this.keep(data));
  }

  private async send(stream: 'stdout' | 'stderr', kept: Uint8Array): Promise<void> {
    for (let offset = 0; offset < kept.length; offset += EXTENSION_LIMITS.chunkBytes) {
      await this.api.extensionWrite(this.callId, stream, kept.slice(offset, offset + EXTENSION_LIMITS.chunkBytes));
    }
  }

  /** The handler's result: its output after what it streamed, and its status. */
  async finish(result: ExtensionResult | undefined): Promise<number> {
    if (result !== undefined && (typeof result !== 'object' || result === null)) throw new TypeError(`the handler returned ${typeof result}, not { stdout, stderr, exitCode }`);
    const exitCode = result?.exitCode ?? 0;
    if (!Number.isInteger(exitCode) || exitCode < 0 || exitCode > 255) throw new RangeError(`the handler returned exitCode ${String(exitCode)}, not a whole number from 0 to 255`);
    const bytes = (value: string | Uint8Array | undefined): Uint8Array => (value === undefined ? new Uint8Array(0) : typeof value === 'string' ? encoder.encode(value) : value);
    this.signal.throwIfAborted();
    const stdout = this.keep(bytes(result?.stdout));
    const stderr = this.keep(bytes(result?.stderr));
    this.closed = true;
    // A small result rides with the exit: one message for the whole call.
    if (stdout.length + stderr.length <= EXTENSION_LIMITS.chunkBytes) this.staged = { stdout, stderr };
    else {
      await this.send('stdout', stdout);
      await this.send('stderr', stderr);
    }
    return exitCode;
  }

  /** Output held for the exit message (finish()), taken once. */
  private staged: { stdout: Uint8Array; stderr: Uint8Array } | undefined;

  takeStaged(): { stdout: Uint8Array; stderr: Uint8Array } | undefined {
    const staged = this.staged;
    this.staged = undefined;
    return staged;
  }

  /** The host's own line on stderr (a timeout, a throw, a cut), outside the output cap. */
  async note(text: string): Promise<void> {
    if (this.staged !== undefined) this.staged.stderr = concatBytes([this.staged.stderr, encoder.encode(text)]);
    else await answerQuietly(() => this.api.extensionWrite(this.callId, 'stderr', encoder.encode(text)));
  }
}

/** The worker's event has the shape the protocol says (a compromised worker may send anything). */
function isWellFormed(event: { callId: unknown; name: unknown; args: unknown; env: unknown; cwd: unknown; stdinIsTerminal?: unknown }): boolean {
  const env = event.env;
  return (
    Number.isSafeInteger(event.callId) &&
    typeof event.name === 'string' &&
    typeof event.cwd === 'string' &&
    Array.isArray(event.args) &&
    event.args.every((arg) => typeof arg === 'string') &&
    (event.stdinIsTerminal === undefined || typeof event.stdinIsTerminal === 'boolean') &&
    typeof env === 'object' &&
    env !== null &&
    Object.values(env).every((value) => typeof value === 'string')
  );
}


/** A request to the worker about a command that may have ended meanwhile: then nobody listens. */
async function answerQuietly(answer: () => Promise<void>): Promise<void> {
  try {
    await answer();
  } catch {
    // The command ended (killed, deadline, worker gone): there is nobody left to tell.
  }
}
