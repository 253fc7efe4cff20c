// Queue URLs: password and TLS reach ioredis, never a message; bad URLs say why.
import { describe, expect, it } from 'vitest';
import { parseQueueUrl } from './queue-url.js';

describe('parseQueueUrl', () => {
  it('passes host, port, database, password and TLS to ioredis', () => {
    const plain = parseQueueUrl('redis://10.0.0.5:6380/2');
    expect(plain.redis).toMatchObject({ host: '10.0.0.5', port: 6380, db: 2, maxRetriesPerRequest: null });
    expect(plain.redis.tls).toBeUndefined();
    const secure = parseQueueUrl('rediss://gates:s%3Acret@queue.example.org');
    expect(secure.redis).toMatchObject({ host: 'queue.example.org', port: 6379, username: 'gates', password: 's:cret', tls: { servername: 'queue.example.org' } });
    expect(secure.display).toBe('rediss://gates:***@queue.example.org');
    expect(parseQueueUrl('redis://:only-password@[::1]:7000').redis).toMatchObject({ host: '::1', port: 7000, password: 'only-password' });
  });

  it('refuses what is not a Redis URL, without echoing a password', () => {
    expect(() => parseQueueUrl('http://x:1')).toThrow(/scheme http: is not redis: or rediss:/);
    expect(() => parseQueueUrl('redis://:pw@host/abc')).toThrow(/database "abc"/);
    expect(() => parseQueueUrl('redis://:hunter2@host/abc')).not.toThrow(/hunter2/);
    expect(() => parseQueueUrl('not a url')).toThrow(/not a URL/);
  });
});
