// The extensions a page's Airlock server hosts (server/extensions/, docs/extensions.md), as
// ExtensionSpecs for Sandbox.create(): each handler sends the call — its stdin whole, up to
// the extension's cap — to the server with this page's token and returns what the server
// ran. The server enforces the limits and records the call; the page applies them too.

import { EXTENSION_CALL_PATH, EXTENSIONS_LIST_PATH, type ExtensionCallReply, type ExtensionCallRequest, type HostedExtensionInfo } from '../../protocol/extensions.js';
import type { ExtensionSpec } from '../extensions/spec.js';
import { pageHeaders, pageToken } from './page-token.js';

/** Time the page gives the server past an extension's timeout, so the server's 124 arrives. */
const SERVER_GRACE_MS = 2000;

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The server's extensions; none when the page was not served by an Airlock server or the
 * server hosts none. `sessionId` names the sandbox in the server's audit events.
 */
export async function serverExtensions(options: { base?: string; sessionId?: () => string | undefined } = {}): Promise<ExtensionSpec[]> {
  if (pageToken() === undefined) return [];
  const base = options.base ?? globalThis.location.href;
  let list: HostedExtensionInfo[];
  try {
    const response = await fetch(new URL(EXTENSIONS_LIST_PATH, base), { headers: pageHeaders() });
    if (!response.ok) return [];
    list = (await response.json()) as HostedExtensionInfo[];
  } catch {
    return [];
  }
  return list.map((info) => ({
    name: info.name,
    description: info.description,
    timeoutMs: info.timeoutMs + SERVER_GRACE_MS,
    maxStdinBytes: info.maxStdinBytes,
    maxOutputBytes: info.maxOutputBytes,
    handler: async ({ args, env, cwd, stdin, signal }) => {
      const request: ExtensionCallRequest = { name: info.name, args, env, cwd, stdin: stdin.isTerminal ? '' : toBase64(await stdin.bytes()), sessionId: options.sessionId?.() };
      const response = await fetch(new URL(EXTENSION_CALL_PATH, base), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...pageHeaders() },
        body: JSON.stringify(request),
        signal,
      });
      const reply = (await response.json()) as ExtensionCallReply & { message?: string };
      if (!response.ok) throw new Error(`the server refused the call (${response.status}): ${reply.message ?? response.statusText}`);
      return { stdout: fromBase64(reply.stdout), stderr: fromBase64(reply.stderr), exitCode: reply.exitCode };
    },
  }));
}
