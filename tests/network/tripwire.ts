// A TCP listener on a loopback address that a test expects nobody to reach: it counts every
// connection (and answers any HTTP request with 200 "tripped", so a client that got through
// shows it plainly). Used by every SSRF test that targets loopback for real.

import { createServer, type Server, type Socket } from 'node:net';

export interface Tripwire {
  host: string;
  port: number;
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

export async function startTripwire(host = '127.0.0.1', port = 0): Promise<Tripwire> {
  const sockets = new Set<Socket>();
  const wire: Tripwire = { host, port: 0, connections: 0, close: async () => undefined };
  const server: Server = createServer((socket) => {
    wire.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\ntripped'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  wire.port = typeof address === 'object' && address !== null ? address.port : 0;
  wire.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return wire;
}
