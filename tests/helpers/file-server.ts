// A loopback HTTP server of fixed files, for the tests of what downloads (pkg, pip): a
// request's path names its body, any other path is a 404. It listens on 127.0.0.1 only.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FileServer {
  /** 127.0.0.1:PORT */
  host: string;
  /** The paths asked for, in order (a test may empty it). */
  requests: string[];
  close(): Promise<void>;
}

/** Serves `files(host)`, asked again at each request (bodies may name the server's address). */
export async function serveFiles(files: (host: string) => Record<string, string | Uint8Array>): Promise<FileServer> {
  const requests: string[] = [];
  let host = '';
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const body = files(host)[request.url ?? ''];
    response.writeHead(body === undefined ? 404 : 200).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { host, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
