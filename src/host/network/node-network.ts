// Network hops from a Node host: fetch with redirects left to the policy loop, and DNS
// lookups for the private-address floor.

import { lookup } from 'node:dns/promises';
import type { HopRequest, HopResponse, NetworkPlatform } from './perform.js';

export const nodeNetwork: NetworkPlatform = {
  async hop(request: HopRequest): Promise<HopResponse> {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body as Uint8Array<ArrayBuffer> | undefined,
      redirect: 'manual',
      signal: request.signal,
    });
    const headers: Array<[string, string]> = [];
    response.headers.forEach((value, name) => headers.push([name, value]));
    return { status: response.status, statusText: response.statusText, headers, body: response.body ?? undefined };
  },
  async resolve(host: string): Promise<string[]> {
    return (await lookup(host, { all: true })).map((entry) => entry.address);
  },
};
