// Network hops from Node: one HTTP exchange with undici, connected to the addresses the
// policy checked (a pinned lookup: no second DNS query that a rebinding name could answer
// differently), redirects left to the policy loop; and the lookups for the SSRF floor.

import { lookup, Resolver } from 'node:dns/promises';
import { STATUS_CODES } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { Agent, request as undiciRequest } from 'undici';
import { DNS_CACHE_LIMITS } from '../../protocol/limits.js';
import { cachedResolver } from './dns-cache.js';
import type { HopRequest, HopResponse, NetworkPlatform } from './perform.js';

export interface NodeNetworkOptions {
  /** DNS servers (`address` or `address:port`) to resolve with instead of the system's resolver. */
  dnsServers?: string[];
}

/** A lookup that answers only with the checked addresses, whatever name is asked. */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  return (hostname, options, callback) => {
    const first = entries[0];
    if (first === undefined) {
      callback(Object.assign(new Error(`no checked address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
      return;
    }
    if (options.all === true) (callback as unknown as (error: null, all: typeof entries) => void)(null, entries);
    else callback(null, first.address, first.family);
  };
}

/**
 * Every address a name has: the system resolver (getaddrinfo, /etc/hosts), or `servers`;
 * answers kept for their TTL (dns-cache.ts; getaddrinfo tells none, so DNS_CACHE_LIMITS'
 * systemTtlSeconds). One resolver per enforcement point: its cache lives as long as it.
 */
export function nodeResolver(servers?: string[]): (host: string) => Promise<string[]> {
  if (servers === undefined) {
    return cachedResolver(async (host) => ({
      addresses: (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address),
      ttlSeconds: DNS_CACHE_LIMITS.systemTtlSeconds,
    }));
  }
  const resolver = new Resolver();
  resolver.setServers(servers);
  return cachedResolver(async (host) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host, { ttl: true }), resolver.resolve6(host, { ttl: true })]);
    const records = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
    if (records.length === 0 && v4.status === 'rejected') throw v4.reason;
    // A family that failed for another reason than "no such record" is not known to be empty: keep nothing.
    const unsure = [v4, v6].some((r) => r.status === 'rejected' && (r.reason as { code?: string }).code !== 'ENODATA');
    return { addresses: records.map((r) => r.address), ttlSeconds: unsure ? 0 : Math.min(...records.map((r) => r.ttl)) };
  });
}

export function nodeNetwork(options: NodeNetworkOptions = {}): NetworkPlatform {
  return {
    async hop(hop: HopRequest): Promise<HopResponse> {
      const agent = new Agent({ connect: hop.addresses.length > 0 ? { lookup: pinnedLookup(hop.addresses) } : {}, pipelining: 0 });
      try {
        const response = await undiciRequest(hop.url, {
          method: hop.method as 'GET',
          headers: hop.headers.flat(),
          body: hop.body,
          signal: hop.signal,
          dispatcher: agent,
        });
        const headers: Array<[string, string]> = [];
        for (const [name, value] of Object.entries(response.headers)) {
          for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.push([name, one]);
        }
        const body = Readable.toWeb(response.body) as ReadableStream<Uint8Array>;
        response.body.once('close', () => void agent.close());
        return { status: response.statusCode, statusText: STATUS_CODES[response.statusCode] ?? '', headers, body };
      } catch (error) {
        void agent.close();
        throw error;
      }
    },
    resolve: nodeResolver(options.dnsServers),
  };
}
