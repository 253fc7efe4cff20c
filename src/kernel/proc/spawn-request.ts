// Decodes the spawn request a program passes to `airlock.proc_spawn` (format: docs/abi.md,
// encoder: crates/airlock-sys/src/spawn.rs). Sizes are checked against the request's
// length so a malformed request is EINVAL, never an out-of-bounds read.

import { Errno, fail } from '../errno.js';
import { decodePathBytes } from '../vfs/path.js';

export interface SpawnRequest {
  flags: number;
  program: string;
  argv: string[];
  env: string[];
  cwd: string;
  fds: Array<{ childFd: number; parentFd: number }>;
  blob: Uint8Array;
}

export const SPAWN_FLAG_IGNORE_SIGPIPE = 1;
export const SPAWN_FLAG_NEW_GROUP = 2;

const MAX_ITEMS = 100000;

export function decodeSpawnRequest(bytes: Uint8Array): SpawnRequest {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  const u32 = (): number => {
    if (offset + 4 > bytes.length) fail(Errno.INVAL, 'truncated spawn request');
    const value = view.getUint32(offset, true);
    offset += 4;
    return value;
  };
  const raw = (): Uint8Array => {
    const length = u32();
    if (offset + length > bytes.length) fail(Errno.INVAL, 'truncated spawn request');
    const out = bytes.subarray(offset, offset + length);
    offset += length;
    return out;
  };
  const str = (): string => decodePathBytes(raw());
  const list = (): string[] => {
    const count = u32();
    if (count > MAX_ITEMS) fail(Errno.INVAL, 'too many items in spawn request');
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(str());
    return out;
  };
  const flags = u32();
  const program = str();
  const argv = list();
  const env = list();
  const cwd = str();
  const fdCount = u32();
  if (fdCount > 1024) fail(Errno.INVAL, 'too many descriptors in spawn request');
  const fds: SpawnRequest['fds'] = [];
  for (let i = 0; i < fdCount; i++) fds.push({ childFd: u32(), parentFd: u32() });
  const blob = raw().slice();
  return { flags, program, argv, env, cwd, fds, blob };
}
