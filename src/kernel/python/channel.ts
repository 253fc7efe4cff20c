// The synchronous system-call channel between a Python worker and the kernel thread: one
// SharedArrayBuffer per worker. The worker writes a request and sleeps in Atomics.wait; the
// kernel thread, which must never block, learns of it through Atomics.waitAsync (or a
// polling fallback where the engine lacks it), serves it through the syscall core and writes the
// answer back. Requests are small JSON headers plus one optional binary payload, so data
// (file contents, pipe bytes) crosses without base64 or structured clone.
//
// Layout: Int32 words [state, jsonLength, dataLength, sequence], then the JSON area, then
// the data area. state: 0 idle, 1 request posted, 2 answer posted.

export const JSON_CAPACITY = 256 * 1024;
export const DATA_CAPACITY = 1024 * 1024;
const HEADER_BYTES = 16;
const JSON_OFFSET = HEADER_BYTES;
const DATA_OFFSET = HEADER_BYTES + JSON_CAPACITY;
export const CHANNEL_BYTES = DATA_OFFSET + DATA_CAPACITY;

const IDLE = 0;
const REQUEST = 1;
const ANSWER = 2;

/** Thrown when a message does not fit the channel (a caller splits its data first). */
export class ChannelOverflowError extends Error {
  constructor(what: string, size: number, capacity: number) {
    super(`python channel: ${what} of ${size} bytes exceeds ${capacity}`);
    this.name = 'ChannelOverflowError';
  }
}

/** A message as it crosses: a JSON value and optional bytes. */
export interface ChannelMessage {
  json: unknown;
  data?: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function writeMessage(buffer: SharedArrayBuffer, message: ChannelMessage): void {
  const words = new Int32Array(buffer, 0, 4);
  const bytes = new Uint8Array(buffer);
  const json = encoder.encode(JSON.stringify(message.json ?? null));
  if (json.length > JSON_CAPACITY) throw new ChannelOverflowError('header', json.length, JSON_CAPACITY);
  const data = message.data ?? new Uint8Array(0);
  if (data.length > DATA_CAPACITY) throw new ChannelOverflowError('payload', data.length, DATA_CAPACITY);
  bytes.set(json, JSON_OFFSET);
  bytes.set(data, DATA_OFFSET);
  words[1] = json.length;
  words[2] = data.length;
}

function readMessage(buffer: SharedArrayBuffer): ChannelMessage {
  const words = new Int32Array(buffer, 0, 4);
  const bytes = new Uint8Array(buffer);
  const jsonLength = Math.min(Math.max(words[1] ?? 0, 0), JSON_CAPACITY);
  const dataLength = Math.min(Math.max(words[2] ?? 0, 0), DATA_CAPACITY);
  // Copies: the SharedArrayBuffer is reused by the next message (and TextDecoder refuses
  // shared views).
  const json = JSON.parse(decoder.decode(bytes.slice(JSON_OFFSET, JSON_OFFSET + jsonLength))) as unknown;
  const data = dataLength > 0 ? bytes.slice(DATA_OFFSET, DATA_OFFSET + dataLength) : undefined;
  return { json, data };
}

/** The worker's side: blocking calls. */
export class SyncChannelClient {
  private readonly words: Int32Array;

  constructor(private readonly buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer, 0, 4);
  }

  call(request: ChannelMessage): ChannelMessage {
    writeMessage(this.buffer, request);
    Atomics.store(this.words, 0, REQUEST);
    Atomics.notify(this.words, 0);
    while (Atomics.load(this.words, 0) !== ANSWER) Atomics.wait(this.words, 0, REQUEST);
    const answer = readMessage(this.buffer);
    Atomics.store(this.words, 0, IDLE);
    return answer;
  }
}

type WaitAsync = (array: Int32Array, index: number, value: number) => { async: boolean; value: Promise<unknown> | string };

/** The kernel thread's side: waits without blocking, answers each request. */
export class ChannelServer {
  private readonly words: Int32Array;
  private closed = false;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer, 0, 4);
  }

  static create(): ChannelServer {
    return new ChannelServer(new SharedArrayBuffer(CHANNEL_BYTES));
  }

  /** Resolves with the next request, or undefined once close() was called. */
  async next(): Promise<ChannelMessage | undefined> {
    const waitAsync = (Atomics as unknown as { waitAsync?: WaitAsync }).waitAsync;
    for (;;) {
      if (this.closed) return undefined;
      const state = Atomics.load(this.words, 0);
      if (state === REQUEST) return readMessage(this.buffer);
      if (waitAsync !== undefined) {
        const result = waitAsync(this.words, 0, state);
        if (result.async) await result.value;
      } else {
        // Engines without waitAsync: poll. Slower, but only the latency suffers.
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
  }

  answer(message: ChannelMessage): void {
    writeMessage(this.buffer, message);
    Atomics.store(this.words, 0, ANSWER);
    Atomics.notify(this.words, 0);
  }

  /** Stops next() (the worker is gone); wakes a pending waitAsync. */
  close(): void {
    this.closed = true;
    Atomics.notify(this.words, 0);
  }
}
