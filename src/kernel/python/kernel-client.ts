// The Python worker's view of the kernel: typed, blocking system calls over the channel
// (mode 1), or over a transport that serves them on the kernel thread itself (inline mode,
// inline-program.ts).
// A failed call throws SyscallError with the kernel's errno (WASI numbering, which is also
// Emscripten's and so Pyodide's `errno` module's); the caller turns it into whatever its
// layer throws (Emscripten's ErrnoError for the filesystem, OSError in Python).

import { DATA_CAPACITY, SyncChannelClient, type ChannelMessage } from './channel.js';
import type { PythonAnswer, PythonRequest, StartInfo, WireNetRequest, WireSpawn, WireStat } from './protocol.js';
import type { OpenFlags } from '../sys/open.js';

export class SyscallError extends Error {
  constructor(
    readonly errno: number,
    message: string,
  ) {
    super(message);
    this.name = 'SyscallError';
  }
}

export interface NetHeadAnswer {
  ok: boolean;
  status?: number;
  statusText?: string;
  url?: string;
  headers?: Array<[string, string]>;
  failure?: string;
  message?: string;
}

/** Carries one request to the kernel and returns its answer, blocking meanwhile. */
export interface KernelTransport {
  call(request: ChannelMessage): ChannelMessage;
}

export class KernelClient {
  private readonly channel: KernelTransport;

  /** `channel`: mode 1's SharedArrayBuffer, or a transport (inline mode has no SharedArrayBuffer). */
  constructor(channel: SharedArrayBuffer | KernelTransport) {
    this.channel = isTransport(channel) ? channel : new SyncChannelClient(channel);
  }

  /** One call; `data` rides beside the request. Returns the value and any bytes. */
  call(request: PythonRequest, data?: Uint8Array): { value: unknown; data: Uint8Array | undefined } {
    const reply = this.channel.call({ json: request, data });
    const answer = reply.json as PythonAnswer;
    if (!answer.ok) throw new SyscallError(answer.errno, answer.message);
    return { value: answer.value, data: reply.data };
  }

  private value<T>(request: PythonRequest): T {
    return this.call(request).value as T;
  }

  /** Asks for a process; `resetMs`: how long the reset before it took (reported by the trace). */
  ready(resetMs?: number): StartInfo {
    return this.value<StartInfo>({ op: 'ready', resetMs });
  }

  exit(status: number): void {
    this.call({ op: 'exit', status });
  }

  fatal(message: string): void {
    this.call({ op: 'fatal', message });
  }

  /** Tells the kernel this worker serves no further process, and why (it is then terminated). */
  retire(reason: string): void {
    this.call({ op: 'retire', reason });
  }

  open(path: string, flags: OpenFlags, mode: number): number {
    return this.value<number>({ op: 'open', path, flags, mode });
  }

  close(fd: number): void {
    this.call({ op: 'close', fd });
  }

  read(fd: number, max: number, position?: number): Uint8Array {
    const { data } = this.call({ op: 'read', fd, max: Math.min(max, DATA_CAPACITY), position });
    return data ?? new Uint8Array(0);
  }

  /** Writes `data` in channel-sized pieces; returns the count written (short only on a short write). */
  write(fd: number, data: Uint8Array, position?: number): number {
    let done = 0;
    do {
      const piece = data.subarray(done, done + DATA_CAPACITY);
      const written = this.call({ op: 'write', fd, position: position === undefined ? undefined : position + done }, piece).value as number;
      done += written;
      if (written < piece.length) break;
    } while (done < data.length);
    return done;
  }

  seek(fd: number, offset: number, whence: 'set' | 'cur' | 'end'): number {
    return this.value<number>({ op: 'seek', fd, offset, whence });
  }

  fstat(fd: number): WireStat {
    return this.value<WireStat>({ op: 'fstat', fd });
  }

  ftruncate(fd: number, size: number): void {
    this.call({ op: 'ftruncate', fd, size });
  }

  isatty(fd: number): boolean {
    return this.value<boolean>({ op: 'isatty', fd });
  }

  stat(path: string, follow: boolean): WireStat {
    return this.value<WireStat>({ op: 'stat', path, follow });
  }

  readdir(path: string): string[] {
    return this.value<string[]>({ op: 'readdir', path });
  }

  mkdir(path: string, mode: number): void {
    this.call({ op: 'mkdir', path, mode });
  }

  rmdir(path: string): void {
    this.call({ op: 'rmdir', path });
  }

  unlink(path: string): void {
    this.call({ op: 'unlink', path });
  }

  rename(from: string, to: string): void {
    this.call({ op: 'rename', from, to });
  }

  symlink(target: string, path: string): void {
    this.call({ op: 'symlink', target, path });
  }

  readlink(path: string): string {
    return this.value<string>({ op: 'readlink', path });
  }

  chmod(path: string, mode: number): void {
    this.call({ op: 'chmod', path, mode });
  }

  utimes(path: string, atimeMs: number | undefined, mtimeMs: number | undefined): void {
    this.call({ op: 'utimes', path, atimeMs, mtimeMs });
  }

  truncate(path: string, size: number): void {
    this.call({ op: 'truncate', path, size });
  }

  chdir(path: string): void {
    this.call({ op: 'chdir', path });
  }

  umask(mask?: number): number {
    return this.value<number>({ op: 'umask', mask });
  }

  pipe(): [number, number] {
    return this.value<[number, number]>({ op: 'pipe' });
  }

  poll(fds: number[], timeoutMs?: number): number[] {
    return this.value<number[]>({ op: 'poll', fds, timeoutMs });
  }

  spawn(request: WireSpawn): number {
    return this.value<number>({ op: 'spawn', request });
  }

  wait(pid: number, noHang: boolean): { pid: number; status: number } | null {
    return this.value<{ pid: number; status: number } | null>({ op: 'wait', pid, noHang });
  }

  kill(pid: number, signal: number): void {
    this.call({ op: 'kill', pid, signal });
  }

  sleep(ms: number): void {
    this.call({ op: 'sleep', ms });
  }

  deadline(): number | null {
    return this.value<number | null>({ op: 'deadline' });
  }

  netRequest(request: WireNetRequest, body: Uint8Array | undefined): number {
    return this.call({ op: 'netRequest', request }, body).value as number;
  }

  netResponse(handle: number): NetHeadAnswer {
    return this.value<NetHeadAnswer>({ op: 'netResponse', handle });
  }

  netRead(handle: number, max: number): Uint8Array {
    return this.call({ op: 'netRead', handle, max: Math.min(max, DATA_CAPACITY) }).data ?? new Uint8Array(0);
  }

  netClose(handle: number): void {
    this.call({ op: 'netClose', handle });
  }

  snapshotPart(data: Uint8Array, offset: number, total: number): void {
    this.call({ op: 'snapshotPart', offset, total }, data);
  }
}

function isTransport(channel: SharedArrayBuffer | KernelTransport): channel is KernelTransport {
  // Not `instanceof SharedArrayBuffer`: the global is absent where inline mode is used.
  return typeof (channel as Partial<KernelTransport>).call === 'function';
}
