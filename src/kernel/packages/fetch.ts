// What pkg and pip share: their refusals, writing text, and fetching a registry's files
// through the host's network path from the package policy's allowedHosts only, without
// following redirects, and never more than a given size.

import { concatBytes } from '../../protocol/bytes.js';
import type { PackagePolicy } from '../../protocol/limits.js';
import type { Syscalls } from '../sys/syscalls.js';
import { hostAllowed } from './registry.js';

const encoder = new TextEncoder();

/** A refusal: the command prints `NAME: MESSAGE` and exits 1. */
export class PackageError extends Error {}

export async function write(sys: Syscalls, fd: number, text: string): Promise<void> {
  await sys.complete(sys.writeAll(fd, encoder.encode(text)));
}

/** GETs `url` through the host, refusing hosts the policy does not allow and bodies over `max` bytes. */
export async function fetchBytes(sys: Syscalls, policy: PackagePolicy, url: string, max: number, what: string): Promise<Uint8Array> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PackageError(`${what}: not a URL: ${url}`);
  }
  if (!hostAllowed(parsed, policy.allowedHosts)) {
    throw new PackageError(`${what}: host ${parsed.host} is not in the package policy's allowedHosts (${policy.allowedHosts.join(', ') || 'none'})`);
  }
  const handle = sys.net.request({ method: 'GET', url: parsed.href, headers: [], followRedirects: false });
  try {
    let head;
    try {
      head = await sys.complete(sys.net.response(handle));
    } catch (error) {
      throw new PackageError(`${what}: ${parsed.href}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!head.ok) throw new PackageError(`${what}: ${parsed.href}: ${head.message}`);
    if (head.status !== 200) throw new PackageError(`${what}: ${parsed.href}: HTTP ${head.status} ${head.statusText}`);
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const part = (await sys.complete(sys.net.read(handle, 65536))).slice();
      if (part.length === 0) break;
      size += part.length;
      if (size > max) throw new PackageError(`${what}: ${parsed.href}: larger than ${max} bytes`);
      parts.push(part);
    }
    return concatBytes(parts, size);
  } finally {
    sys.net.close(handle);
  }
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
