// The server gateway's wire format (browser host ⇄ server), shared by both sides.
// Request: POST /api/net/hop with body `u32 JSON length | JSON {method,url,headers} | body`.
// Response: the upstream status and headers in X-Airlock-* headers, the body as is; or 403
// with JSON {message} when the server's own policy refuses the hop.

export const GATEWAY_PATH = '/api/net/hop';

export interface GatewayHop {
  method: string;
  url: string;
  headers: Array<[string, string]>;
}

export function encodeHop(hop: GatewayHop, body: Uint8Array | undefined): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(hop));
  const out = new Uint8Array(4 + json.length + (body?.length ?? 0));
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 4);
  if (body !== undefined) out.set(body, 4 + json.length);
  return out;
}

export function decodeHop(bytes: Uint8Array): { hop: GatewayHop; body: Uint8Array } {
  if (bytes.length < 4) throw new Error('truncated gateway request');
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  if (4 + length > bytes.length) throw new Error('truncated gateway request');
  const hop = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length))) as GatewayHop;
  if (typeof hop.method !== 'string' || typeof hop.url !== 'string' || !Array.isArray(hop.headers)) throw new Error('malformed gateway request');
  return { hop, body: bytes.subarray(4 + length) };
}
