// A DNS server on 127.0.0.1 for tests: it records every question it is asked and answers
// from a table (a function, so a test can change its answer between queries: rebinding).
// Names it has no answer for get NXDOMAIN. UDP only, which is all Node's resolver needs.

import { createSocket, type Socket } from 'node:dgram';
import dnsPacket from 'dns-packet';

export interface DnsQuestion {
  name: string;
  type: string;
}

/** Addresses for a name and record type (A or AAAA), or undefined for NXDOMAIN. */
export type DnsAnswers = (name: string, type: 'A' | 'AAAA', count: number) => string[] | undefined;

export interface DnsStub {
  /** `127.0.0.1:PORT`, for a resolver's server list. */
  server: string;
  questions: DnsQuestion[];
  close(): Promise<void>;
}

/** `ttlSeconds`: the TTL of every answer (default 0: a resolver may keep none). */
export async function startDnsStub(answers: DnsAnswers, options: { ttlSeconds?: number } = {}): Promise<DnsStub> {
  const socket: Socket = createSocket('udp4');
  const questions: DnsQuestion[] = [];
  socket.on('message', (message, remote) => {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    if (question === undefined) return;
    questions.push({ name: question.name, type: question.type });
    const count = questions.filter((q) => q.name === question.name && q.type === question.type).length;
    const type = question.type === 'AAAA' ? 'AAAA' : 'A';
    const addresses = question.type === 'A' || question.type === 'AAAA' ? answers(question.name, type, count) : [];
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (addresses === undefined ? 3 : 0),
      questions: [question],
      answers: (addresses ?? []).map((data) => ({ type, name: question.name, ttl: options.ttlSeconds ?? 0, class: 'IN' as const, data })),
    });
    socket.send(response, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    questions,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
