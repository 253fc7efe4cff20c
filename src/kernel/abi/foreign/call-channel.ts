// The system-call channel of a foreign program's worker: one small SharedArrayBuffer. The
// worker writes a call (the WASI function's index in WASI_SIGNATURES and its arguments as
// numbers, i64s as BigInts) and sleeps in Atomics.wait; the kernel thread, which never
// blocks, learns of it through Atomics.waitAsync (a polling fallback where the engine lacks
// it), runs the function on the program's shared memory and writes the answer back. No
// data crosses here: the kernel reads and writes the program's memory itself.
//
// Layout (Int32 words): [state, op, index, argc, value, answer, bigintMask, textLength],
// then 16 argument slots of 8 bytes at byte 64, then a text area (a crash's message).
// state: 0 idle, 1 posted by the worker, 2 answered by the kernel.

const IDLE = 0;
const POSTED = 1;
const ANSWERED = 2;
const ARGS_OFFSET = 64;
const MAX_ARGS = 16;
const TEXT_OFFSET = ARGS_OFFSET + MAX_ARGS * 8;
const TEXT_CAPACITY = 2048;
export const CALL_CHANNEL_BYTES = TEXT_OFFSET + TEXT_CAPACITY;

const OP_CALL = 1;
const OP_END = 2;
const ANSWER_VALUE = 0;
const ANSWER_UNWIND = 1;

/** How a program's run ended, as the worker reports it. */
export type ForeignEnd =
  | { how: 'returned' }
  /** The kernel ended the process (proc_exit, a kill): the worker unwound the instance. */
  | { how: 'unwound' }
  /** The instance trapped or could not start; `message` says why. */
  | { how: 'trapped'; message: string; unreachable: boolean };

/** A message from the worker: a call, or the end of the run. */
export type ForeignMessage = { op: 'call'; index: number; args: Array<number | bigint> } | { op: 'end'; end: ForeignEnd };

const decoder = new TextDecoder();
const encoder = new TextEncoder();

class Layout {
  readonly words: Int32Array;
  readonly numbers: Float64Array;
  readonly bigints: BigInt64Array;
  readonly bytes: Uint8Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer, 0, 16);
    this.numbers = new Float64Array(buffer, ARGS_OFFSET, MAX_ARGS);
    this.bigints = new BigInt64Array(buffer, ARGS_OFFSET, MAX_ARGS);
    this.bytes = new Uint8Array(buffer);
  }
}

/** Thrown inside the instance when the kernel has ended the process: it unwinds the wasm stack. */
export class ForeignUnwind extends Error {
  constructor() {
    super('the process has ended');
    this.name = 'ForeignUnwind';
  }
}

/** The worker's side: blocking calls. */
export class ForeignCallClient {
  private readonly layout: Layout;

  constructor(buffer: SharedArrayBuffer) {
    this.layout = new Layout(buffer);
  }

  /** Makes call `index` and returns its errno; throws ForeignUnwind when the process has ended. */
  call(index: number, args: ArrayLike<number | bigint>): number {
    const { words, numbers, bigints } = this.layout;
    let mask = 0;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as number | bigint;
      if (typeof arg === 'bigint') {
        bigints[i] = arg;
        mask |= 1 << i;
      } else {
        numbers[i] = arg;
      }
    }
    words[1] = OP_CALL;
    words[2] = index;
    words[3] = args.length;
    words[6] = mask;
    this.post();
    if (words[5] === ANSWER_UNWIND) throw new ForeignUnwind();
    return words[4] as number;
  }

  /** Reports the end of the run and waits until the kernel has taken note. */
  end(end: ForeignEnd): void {
    const { words, bytes } = this.layout;
    words[1] = OP_END;
    words[4] = end.how === 'returned' ? 0 : end.how === 'unwound' ? 1 : end.unreachable ? 3 : 2;
    const text = end.how === 'trapped' ? encoder.encode(end.message).subarray(0, TEXT_CAPACITY) : new Uint8Array(0);
    bytes.set(text, TEXT_OFFSET);
    words[7] = text.length;
    this.post();
  }

  private post(): void {
    const { words } = this.layout;
    Atomics.store(words, 0, POSTED);
    Atomics.notify(words, 0);
    while (Atomics.load(words, 0) !== ANSWERED) Atomics.wait(words, 0, POSTED);
    Atomics.store(words, 0, IDLE);
  }
}

type WaitAsync = (array: Int32Array, index: number, value: number) => { async: boolean; value: Promise<unknown> | string };

/** The kernel thread's side: waits without blocking, answers each message. */
export class ForeignCallHost {
  private readonly layout: Layout;
  private closed = false;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.layout = new Layout(buffer);
  }

  static create(): ForeignCallHost {
    return new ForeignCallHost(new SharedArrayBuffer(CALL_CHANNEL_BYTES));
  }

  /** Resolves with the worker's next message, or undefined once close() was called. */
  async next(): Promise<ForeignMessage | undefined> {
    const { words } = this.layout;
    const waitAsync = (Atomics as unknown as { waitAsync?: WaitAsync }).waitAsync;
    for (;;) {
      if (this.closed) return undefined;
      const state = Atomics.load(words, 0);
      if (state === POSTED) return this.read();
      if (waitAsync !== undefined) {
        const result = waitAsync(words, 0, state);
        if (result.async) await result.value;
      } else {
        // Engines without waitAsync: poll. Slower, but only the latency suffers.
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
  }

  /** The message posted now (state POSTED), read without waiting. */
  private read(): ForeignMessage {
    const { words, numbers, bigints, bytes } = this.layout;
    if (words[1] === OP_END) {
      const code = words[4];
      if (code === 0) return { op: 'end', end: { how: 'returned' } };
      if (code === 1) return { op: 'end', end: { how: 'unwound' } };
      const length = Math.min(Math.max(words[7] ?? 0, 0), TEXT_CAPACITY);
      return { op: 'end', end: { how: 'trapped', unreachable: code === 3, message: decoder.decode(bytes.slice(TEXT_OFFSET, TEXT_OFFSET + length)) } };
    }
    const argc = Math.min(Math.max(words[3] ?? 0, 0), MAX_ARGS);
    const mask = words[6] as number;
    const args: Array<number | bigint> = [];
    for (let i = 0; i < argc; i++) args.push((mask & (1 << i)) !== 0 ? (bigints[i] as bigint) : (numbers[i] as number));
    return { op: 'call', index: words[2] as number, args };
  }

  /** Answers a call with its result (an errno). */
  answer(value: number): void {
    this.settle(ANSWER_VALUE, value);
  }

  /** Answers a call, or acknowledges an end, telling the worker the process is over. */
  unwind(): void {
    this.settle(ANSWER_UNWIND, 0);
  }

  private settle(answer: number, value: number): void {
    const { words } = this.layout;
    words[4] = value;
    words[5] = answer;
    Atomics.store(words, 0, ANSWERED);
    Atomics.notify(words, 0);
  }

  /** Stops next() (the worker is gone); wakes a pending waitAsync. */
  close(): void {
    this.closed = true;
    Atomics.notify(this.layout.words, 0);
  }
}
