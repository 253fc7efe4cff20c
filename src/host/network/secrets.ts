// Secret injection (ARCHITECTURE.md §7): credentials live on the host or server, each bound
// to hosts (and optionally path prefixes) and a header template. An enforcement point adds
// the header after the policy allowed the request, only for a bound host; the sandbox holds
// at most a placeholder (its environment gets `NAME=airlock-secret:NAME`). A response that
// echoes a secret back has it replaced by the placeholder, in headers and body. (Used in
// Node and by the server; a browser host holds no secrets.)

import { canonicalHost } from './address.js';
import { HostSet } from './host-set.js';

export interface SecretBinding {
  /** The variable name the sandbox sees a placeholder for (`GITHUB_TOKEN`). */
  name: string;
  /** The secret itself (read by the host from its environment or a file; never given to the sandbox). */
  value: string;
  /** Host patterns it is sent to (`api.github.com`, `*.example.com`). */
  hosts: string[];
  /** Path prefixes it is limited to (default: every path of those hosts). */
  paths?: string[];
  /** The header it goes in (`Authorization`). */
  header: string;
  /** The header's value: `${NAME}` is the secret, `${base64:TEXT}` base64-encodes TEXT (Basic auth). */
  template: string;
  /** `web-search`: only for a session or phase whose policy sets webSearch (search-provider keys). */
  when?: 'web-search';
}

/** What the sandbox sees in place of a secret. */
export function placeholderOf(name: string): string {
  return `airlock-secret:${name}`;
}

/** The placeholders to put in the sandbox's environment. */
export function secretPlaceholders(bindings: readonly SecretBinding[] | undefined): Record<string, string> {
  return Object.fromEntries((bindings ?? []).map((b) => [b.name, placeholderOf(b.name)]));
}

function render(binding: SecretBinding): string {
  const filled = binding.template.split(`\${${binding.name}}`).join(binding.value);
  return filled.replace(/\$\{base64:([^}]*)\}/g, (_all, text: string) => Buffer.from(text).toString('base64'));
}

const hostSets = new WeakMap<SecretBinding, HostSet>();

function hostsOf(binding: SecretBinding): HostSet {
  let set = hostSets.get(binding);
  if (set === undefined) {
    set = new HostSet();
    for (const host of binding.hosts) set.add(host, `secret:${binding.name}`);
    hostSets.set(binding, set);
  }
  return set;
}

/**
 * The headers to set on a request to `url` (after the policy allowed it): each binding whose
 * hosts and paths match. They replace any header of the same name the sandbox sent.
 */
export function secretHeaders(bindings: readonly SecretBinding[] | undefined, url: URL, options: { webSearch?: boolean } = {}): Array<[string, string]> {
  const host = canonicalHost(url.hostname);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const headers: Array<[string, string]> = [];
  for (const binding of bindings ?? []) {
    if (binding.when === 'web-search' && options.webSearch !== true) continue;
    if (hostsOf(binding).find(host, port) === undefined) continue;
    if (binding.paths !== undefined && !binding.paths.some((prefix) => url.pathname.startsWith(prefix))) continue;
    headers.push([binding.header, render(binding)]);
  }
  return headers;
}

/** `headers` with the secret headers put in place of any the sandbox sent under those names. */
export function withSecrets(headers: Array<[string, string]>, secrets: Array<[string, string]>): Array<[string, string]> {
  if (secrets.length === 0) return headers;
  const names = new Set(secrets.map(([name]) => name.toLowerCase()));
  return [...headers.filter(([name]) => !names.has(name.toLowerCase())), ...secrets];
}

/** Every form of a secret a response could echo: the value, and each rendered header value. */
export function echoes(bindings: readonly SecretBinding[]): Array<{ find: Buffer; replace: Buffer }> {
  const out: Array<{ find: Buffer; replace: Buffer }> = [];
  for (const binding of bindings) {
    const placeholder = Buffer.from(placeholderOf(binding.name));
    const rendered = render(binding);
    // The value itself, and forms that hide it (base64, a Basic-auth header value).
    const forms = [binding.value, Buffer.from(binding.value).toString('base64'), ...(rendered.includes(binding.value) ? [] : [rendered])];
    for (const form of new Set(forms)) if (form.length >= 4) out.push({ find: Buffer.from(form), replace: placeholder });
  }
  return out.sort((a, b) => b.find.length - a.find.length);
}

export function replaceAll(bytes: Buffer, forms: ReadonlyArray<{ find: Buffer; replace: Buffer }>): Buffer {
  let out = bytes;
  for (const { find, replace } of forms) {
    if (out.indexOf(find) < 0) continue;
    const parts: Buffer[] = [];
    let from = 0;
    for (let at = out.indexOf(find); at >= 0; at = out.indexOf(find, from)) {
      parts.push(out.subarray(from, at), replace);
      from = at + find.length;
    }
    parts.push(out.subarray(from));
    out = Buffer.concat(parts);
  }
  return out;
}

/** Replaces echoed secrets in a whole body or header value. */
export function scrub(bindings: readonly SecretBinding[] | undefined, bytes: Uint8Array): Uint8Array {
  if (bindings === undefined || bindings.length === 0) return bytes;
  return replaceAll(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), echoes(bindings));
}

export function scrubText(bindings: readonly SecretBinding[] | undefined, text: string): string {
  if (bindings === undefined || bindings.length === 0) return text;
  return Buffer.from(scrub(bindings, Buffer.from(text))).toString();
}
