// A client of Firecracker's REST API over its Unix socket (node:http with socketPath).
// Errors carry Firecracker's fault_message.

import { request } from 'node:http';
import type { ApiRequest } from './requests.js';

export class FirecrackerApiError extends Error {
  constructor(
    readonly status: number,
    readonly path: string,
    message: string,
  ) {
    super(`firecracker ${path}: ${status} ${message}`);
    this.name = 'FirecrackerApiError';
  }
}

export function callApi(socketPath: string, call: ApiRequest, timeoutMs = 10_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const req = request(
      { socketPath, path: call.path, method: call.method, timeout: timeoutMs, headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          let parsed: unknown = undefined;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            parsed = text;
          }
          if (status >= 200 && status < 300) resolve(parsed);
          else reject(new FirecrackerApiError(status, call.path, (parsed as { fault_message?: string } | undefined)?.fault_message ?? text));
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`firecracker ${call.path}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
