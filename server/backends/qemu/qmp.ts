// A minimal QMP client (QEMU's JSON machine protocol on a Unix socket): commands in order,
// one reply each; asynchronous events are skipped.

import { createConnection, type Socket } from 'node:net';

export class QmpClient {
  private buffer = '';
  private waiting: Array<(message: Record<string, unknown>) => void> = [];

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline).trim();
        this.buffer = this.buffer.slice(newline + 1);
        if (line === '') continue;
        const message = JSON.parse(line) as Record<string, unknown>;
        if ('event' in message) continue;
        this.waiting.shift()?.(message);
      }
    });
  }

  static async connect(path: string, timeoutMs = 30_000): Promise<QmpClient> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const socket = await new Promise<Socket>((resolve, reject) => {
          const s = createConnection(path, () => resolve(s));
          s.once('error', reject);
        });
        const client = new QmpClient(socket);
        await client.next(); // the greeting
        await client.execute('qmp_capabilities');
        return client;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  private next(): Promise<Record<string, unknown>> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async execute(command: string, args?: Record<string, unknown>): Promise<unknown> {
    const reply = this.next();
    this.socket.write(JSON.stringify(args === undefined ? { execute: command } : { execute: command, arguments: args }) + '\n');
    const message = await reply;
    if ('error' in message) throw new Error(`QMP ${command}: ${JSON.stringify(message.error)}`);
    return message.return;
  }

  close(): void {
    this.socket.destroy();
  }
}
