// Network hops from a browser host: through the server's gateway (a page may not reach
// other origins itself, and the server applies its own policy as a second wall).

import { GATEWAY_PATH, encodeHop } from '../../protocol/gateway.js';
import { HopRefusedError, type HopRequest, type HopResponse, type NetworkPlatform } from './perform.js';

/** `headers`: the page's token (src/host/browser/page-token.ts), without which the server refuses. */
export function gatewayNetwork(baseUrl: string, headers: Record<string, string> = {}): NetworkPlatform {
  return {
    async hop(request: HopRequest): Promise<HopResponse> {
      const response = await fetch(new URL(GATEWAY_PATH, baseUrl), {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/octet-stream' },
        body: encodeHop({ method: request.method, url: request.url, headers: request.headers }, request.body) as Uint8Array<ArrayBuffer>,
        signal: request.signal,
      });
      if (response.status === 403) {
        const { message } = (await response.json()) as { message: string };
        throw new HopRefusedError(message);
      }
      if (!response.headers.has('x-airlock-status')) throw new Error(`the gateway answered HTTP ${response.status}`);
      return {
        status: Number(response.headers.get('x-airlock-status')),
        statusText: response.headers.get('x-airlock-status-text') ?? '',
        headers: JSON.parse(response.headers.get('x-airlock-headers') ?? '[]') as Array<[string, string]>,
        body: response.body ?? undefined,
      };
    },
  };
}
