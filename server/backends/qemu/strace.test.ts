import { describe, expect, it } from 'vitest';
import { parseStrace, phaseTrace } from './strace.js';

// Lines as strace 6.1 writes them in the guest (-f -qq -s 512 -e trace=execve,connect).
const GOLDEN = [
  '231   execve("/usr/bin/env", ["env", "-i", "HOME=/home/user", "npm", "test"], 0x55d0c1a0e2a8 /* 3 vars */) = 0',
  '232   execve("/usr/local/bin/npm", ["npm", "test"], 0x7ffc1b2f1e18 /* 2 vars */) = -1 ENOENT (No such file or directory)',
  '232   execve("/usr/bin/npm", ["npm", "test"], 0x7ffc1b2f1e18 /* 2 vars */) = 0',
  '240   connect(21, {sa_family=AF_INET, sin_port=htons(3128), sin_addr=inet_addr("10.0.2.100")}, 16) = -1 EINPROGRESS (Operation now in progress)',
  '241   connect(3, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)',
  '242   connect(4, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0',
  '243   execve("/bin/echo", ["echo", "a \\"quoted\\" word\\n"], 0x1 /* 1 var */) = 0',
  'garbage the guest wrote = 0',
  '244   +++ exited with 0 +++',
].join('\n');

describe('parseStrace', () => {
  it('keeps successful execs (path and argv) and inet connects, nothing else', () => {
    expect(parseStrace(GOLDEN)).toEqual([
      { kind: 'exec', path: '/usr/bin/env', argv: ['env', '-i', 'HOME=/home/user', 'npm', 'test'] },
      { kind: 'exec', path: '/usr/bin/npm', argv: ['npm', 'test'] },
      { kind: 'connect', host: '10.0.2.100', port: 3128 },
      { kind: 'connect', host: '::1', port: 443 },
      { kind: 'exec', path: '/bin/echo', argv: ['echo', 'a "quoted" word\n'] },
    ]);
  });

  it("leaves out the agent's env -i wrapper that starts a phase, and only that", () => {
    const entries = phaseTrace(GOLDEN);
    expect(entries[0]).toEqual({ kind: 'exec', path: '/usr/bin/npm', argv: ['npm', 'test'] });
    expect(entries).toHaveLength(parseStrace(GOLDEN).length - 1);
    const noWrapper = '300   execve("/usr/bin/env", ["env", "FOO=1", "ls"], 0x1 /* 1 var */) = 0';
    expect(phaseTrace(noWrapper)).toEqual(parseStrace(noWrapper));
  });
});
