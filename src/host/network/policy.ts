// The sandbox's network policy, decided by the host (and again by the server's gateway):
// default deny; `allowedHosts` with `*.example.com` wildcards and optional `:port`;
// `blockedHosts` wins over `allowedHosts`; private and loopback addresses only when a
// pattern names them exactly (the SSRF floor); an `onRequest` hook may refuse more.

export interface NetworkPolicy {
  /** Hosts the sandbox may reach: `example.com`, `*.example.com` (subdomains), `host:8080`, `*`. */
  allowedHosts?: string[];
  /** Hosts it may never reach, even when allowed above. */
  blockedHosts?: string[];
  /** Called for every request (and every redirect hop) the patterns allow; false refuses it. */
  onRequest?: (request: { method: string; url: string }) => boolean | Promise<boolean>;
}

export type Decision = { allowed: true } | { allowed: false; reason: string };

interface Pattern {
  host: string;
  wildcard: boolean;
  port: string | undefined;
  text: string;
}

function parsePattern(text: string): Pattern {
  const trimmed = text.trim().toLowerCase();
  let host = trimmed;
  let port: string | undefined;
  const bracket = trimmed.startsWith('[') ? trimmed.indexOf(']') : -1;
  const colon = bracket >= 0 ? trimmed.indexOf(':', bracket) : trimmed.lastIndexOf(':');
  if (colon > 0 && trimmed.indexOf(':') === colon) {
    host = trimmed.slice(0, colon);
    port = trimmed.slice(colon + 1);
  }
  host = host.replace(/^\[|\]$/g, '');
  if (host === '*') return { host: '', wildcard: true, port, text };
  if (host.startsWith('*.')) return { host: host.slice(2), wildcard: true, port, text };
  return { host, wildcard: false, port, text };
}

function matches(pattern: Pattern, host: string, port: string): boolean {
  if (pattern.port !== undefined && pattern.port !== '*' && pattern.port !== port) return false;
  if (!pattern.wildcard) return host === pattern.host;
  if (pattern.host === '') return true;
  return host.endsWith(`.${pattern.host}`);
}

/** Whether `host` is loopback, private, link-local or otherwise not on the public internet. */
export function isPrivateHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '0.0.0.0' || h === '::' || h === '::1') return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h.replace(/^::ffff:/, ''));
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
  }
  if (h.includes(':')) return h.startsWith('fc') || h.startsWith('fd') || h.startsWith('fe8') || h.startsWith('fe9') || h.startsWith('fea') || h.startsWith('feb');
  return false;
}

export function defaultPort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** Decides about one URL (one hop). `resolved` are the addresses the host name resolves to, if known. */
export async function decide(policy: NetworkPolicy | undefined, method: string, url: URL, resolved: string[] = []): Promise<Decision> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { allowed: false, reason: `only http and https are allowed, not ${url.protocol}` };
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = defaultPort(url);
  const allowed = (policy?.allowedHosts ?? []).map(parsePattern);
  if (allowed.length === 0) return { allowed: false, reason: 'network access is off (network.allowedHosts is empty)' };
  const blocked = (policy?.blockedHosts ?? []).map(parsePattern).find((p) => matches(p, host, port));
  if (blocked !== undefined) return { allowed: false, reason: `${host} is blocked by network.blockedHosts (${blocked.text})` };
  const allowing = allowed.filter((p) => matches(p, host, port));
  if (allowing.length === 0) return { allowed: false, reason: `${host}${url.port ? `:${url.port}` : ''} is not in network.allowedHosts` };
  const named = allowing.some((p) => !p.wildcard);
  if (!named && (isPrivateHost(host) || resolved.some(isPrivateHost))) {
    return { allowed: false, reason: `${host} is a private or loopback address; it must be listed in network.allowedHosts by name, not by a wildcard` };
  }
  if (policy?.onRequest !== undefined && !(await policy.onRequest({ method, url: url.href }))) {
    return { allowed: false, reason: `the request to ${host} was refused by network.onRequest` };
  }
  return { allowed: true };
}
