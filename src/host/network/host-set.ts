// A set of host patterns compiled for lookups that do not grow with its size: exact hosts
// in one map, `*.suffix` wildcards in another (a lookup tries each suffix of the host, so
// it costs the number of labels), `*` alone in a list. Each entry keeps its optional port
// and where it came from, for the decision's `rule`.

import { canonicalHost } from './address.js';

export interface HostEntry {
  /** The pattern as written (`api.example.com:8443`, `*.pypi.org`). */
  text: string;
  /** `group:NAME` or the policy key it came from. */
  source: string;
  wildcard: boolean;
  /** A port number, `*`, or undefined (the policy's default ports). */
  port: string | undefined;
  /** The order entries were added in (first match wins where order matters). */
  index: number;
}

/** Splits `host`, `host:port`, `[v6]:port`, `*.suffix:*` into host and port. */
export function splitPattern(text: string): { host: string; port: string | undefined } {
  const trimmed = text.trim().toLowerCase();
  if (trimmed.startsWith('[')) {
    const close = trimmed.indexOf(']');
    const rest = trimmed.slice(close + 1);
    return { host: trimmed.slice(1, close), port: rest.startsWith(':') ? rest.slice(1) : undefined };
  }
  const colon = trimmed.lastIndexOf(':');
  if (colon > 0 && trimmed.indexOf(':') === colon) return { host: trimmed.slice(0, colon), port: trimmed.slice(colon + 1) };
  return { host: trimmed, port: undefined };
}

export class HostSet {
  private readonly exact = new Map<string, HostEntry[]>();
  private readonly suffixes = new Map<string, HostEntry[]>();
  private readonly any: HostEntry[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(text: string, source: string): void {
    const { host, port } = splitPattern(text);
    const index = this.count++;
    if (host === '*') {
      this.any.push({ text, source, wildcard: true, port, index });
      return;
    }
    const wildcard = host.startsWith('*.');
    const key = canonicalHost(wildcard ? host.slice(2) : host);
    const map = wildcard ? this.suffixes : this.exact;
    const list = map.get(key) ?? [];
    list.push({ text, source, wildcard, port, index });
    map.set(key, list);
  }

  /** Every entry that matches `host` (canonical) whatever its port, in insertion order. */
  matchesOf(host: string): HostEntry[] {
    const found: HostEntry[] = [...(this.exact.get(host) ?? [])];
    for (let dot = host.indexOf('.'); dot >= 0; dot = host.indexOf('.', dot + 1)) {
      const list = this.suffixes.get(host.slice(dot + 1));
      if (list !== undefined) found.push(...list);
    }
    found.push(...this.any);
    return found.length > 1 ? found.sort((a, b) => a.index - b.index) : found;
  }

  /** Every entry matching `host` and `port` (`defaults`: the ports an entry without one allows). */
  findAll(host: string, port: string, defaults?: ReadonlySet<string>): HostEntry[] {
    return this.matchesOf(host).filter((entry) => (entry.port === undefined ? defaults === undefined || defaults.has(port) : entry.port === '*' || entry.port === port));
  }

  /** The first entry matching `host` and `port`. */
  find(host: string, port: string, defaults?: ReadonlySet<string>): HostEntry | undefined {
    return this.findAll(host, port, defaults)[0];
  }
}
