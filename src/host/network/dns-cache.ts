// A DNS cache for the egress engine's lookups (the proxy asks for the same few names on every
// request). An answer is kept for its TTL (capped), failures are not kept, and concurrent
// lookups of one name share one query. Caching changes nothing about what is allowed: the
// policy checks every address of a cached answer on every request, exactly as for a fresh
// one, and the connection goes to the addresses checked (pinned), so a cached answer is a
// checked answer and a rebinding name cannot switch it between check and connect.

import { DNS_CACHE_LIMITS } from '../../protocol/limits.js';

/** Addresses of a name and how long (seconds) they may be kept. */
export interface TimedAnswer {
  addresses: string[];
  ttlSeconds: number;
}

interface Entry {
  addresses: string[];
  expires: number;
}

export interface DnsCacheOptions {
  maxEntries?: number;
  maxTtlSeconds?: number;
  /** The clock (ms), for tests. */
  now?: () => number;
}

/** A resolver that answers from the cache while an answer's TTL lasts. */
export function cachedResolver(lookup: (host: string) => Promise<TimedAnswer>, options: DnsCacheOptions = {}): (host: string) => Promise<string[]> {
  const maxEntries = options.maxEntries ?? DNS_CACHE_LIMITS.maxEntries;
  const maxTtl = options.maxTtlSeconds ?? DNS_CACHE_LIMITS.maxTtlSeconds;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const pending = new Map<string, Promise<string[]>>();
  return (host) => {
    const entry = entries.get(host);
    if (entry !== undefined) {
      if (entry.expires > now()) {
        // Map order is the eviction order: a hit moves the name to the back.
        entries.delete(host);
        entries.set(host, entry);
        return Promise.resolve(entry.addresses);
      }
      entries.delete(host);
    }
    const inFlight = pending.get(host);
    if (inFlight !== undefined) return inFlight;
    const query = lookup(host).then(
      (answer) => {
        pending.delete(host);
        // Shared by every caller that gets this answer: nobody may edit it.
        Object.freeze(answer.addresses);
        const ttl = Math.min(maxTtl, Math.max(0, answer.ttlSeconds));
        if (ttl > 0 && answer.addresses.length > 0) {
          if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
          entries.set(host, { addresses: answer.addresses, expires: now() + ttl * 1000 });
        }
        return answer.addresses;
      },
      (error: unknown) => {
        pending.delete(host);
        throw error;
      },
    );
    pending.set(host, query);
    return query;
  };
}
