// The network gateway: performs one HTTP hop for a browser sandbox host, after checking the
// server's own policy (a second wall: a page's policy is only as trustworthy as the page).
// Redirects are not followed here; the host follows them, asking again for every hop.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeHop } from '../../src/protocol/gateway.js';
import { decide, type NetworkPolicy } from '../../src/host/network/policy.js';
import { nodeNetwork } from '../../src/host/network/node-network.js';

const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

export interface GatewayOptions {
  policy: NetworkPolicy;
  responseBytes: number;
  /** Called for every hop decided (the audit sink). */
  audit?: (entry: { method: string; url: string; allowed: boolean; reason?: string }) => void;
}

async function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    total += (chunk as Buffer).length;
    if (total > limit) throw new Error(`request body over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function handleHop(req: IncomingMessage, res: ServerResponse, options: GatewayOptions): Promise<void> {
  const refuse = (status: number, message: string): void => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ message }));
  };
  let hop;
  let body;
  try {
    ({ hop, body } = decodeHop(await readBody(req, MAX_REQUEST_BYTES)));
  } catch (error) {
    refuse(400, (error as Error).message);
    return;
  }
  let url: URL;
  try {
    url = new URL(hop.url);
  } catch {
    refuse(400, 'malformed URL');
    return;
  }
  const resolved = /^[\d.]+$|:/.test(url.hostname) ? [] : await nodeNetwork.resolve!(url.hostname).catch(() => []);
  const decision = await decide(options.policy, hop.method, url, resolved);
  options.audit?.({ method: hop.method, url: url.href, allowed: decision.allowed, ...(decision.allowed ? {} : { reason: decision.reason }) });
  if (!decision.allowed) {
    refuse(403, `refused by the server's network policy: ${decision.reason}`);
    return;
  }
  const controller = new AbortController();
  req.on('close', () => controller.abort());
  try {
    const response = await nodeNetwork.hop({ method: hop.method, url: url.href, headers: hop.headers, body: body.length > 0 ? body : undefined, signal: controller.signal });
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'X-Airlock-Status': String(response.status),
      'X-Airlock-Status-Text': response.statusText.replace(/[^\x20-\x7e]/g, ''),
      'X-Airlock-Headers': JSON.stringify(response.headers),
    });
    let sent = 0;
    const reader = response.body?.getReader();
    while (reader !== undefined) {
      const { done, value } = await reader.read();
      if (done) break;
      sent += value.length;
      if (sent > options.responseBytes) {
        await reader.cancel();
        break;
      }
      res.write(value);
    }
    res.end();
  } catch (error) {
    if (!res.headersSent) refuse(502, (error as Error).message);
    else res.destroy();
  }
}
