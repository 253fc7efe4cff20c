// Python held to the sandbox's limits and robust against its own bridge (issue 20):
// memoryBytes caps the interpreter's memory (MemoryError, not the host's memory), and a
// malformed kernel request made through `_airlock.call` is EINVAL, never a crash.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, drainWarmPool } from './index.js';

const MiB = 1024 * 1024;

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await Sandbox.create({ limits: { memoryBytes: 256 * MiB } });
});

afterAll(async () => {
  await sandbox?.destroy();
  await drainWarmPool();
});

describe('python3 and memoryBytes', () => {
  it('raises MemoryError for an allocation past the limit and goes on', async () => {
    const code = [
      'try:',
      '    bytearray(1 << 30)',
      "    print('allocated 1 GiB')",
      'except MemoryError:',
      "    print('MemoryError')",
      'small = bytearray(16 << 20)',
      "print('still works', len(small))",
    ].join('\n');
    const result = await sandbox.run(['python3', '-c', code], { timeoutMs: 120_000 });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`MemoryError\nstill works ${16 << 20}\n`);
    expect(result.exitCode).toBe(0);
  });

  it('cannot grow past the limit bit by bit either', async () => {
    const code = [
      'chunks = []',
      'try:',
      '    for _ in range(64):',
      '        chunks.append(bytearray(8 << 20))',
      "    print('grew to', len(chunks) * 8, 'MiB')",
      'except MemoryError:',
      "    print('MemoryError after', len(chunks) * 8, 'MiB')",
    ].join('\n');
    const result = await sandbox.run(['python3', '-c', code], { timeoutMs: 120_000 });
    expect(result.stdout).toMatch(/^MemoryError after \d+ MiB\n$/);
    expect(Number(/after (\d+)/.exec(result.stdout)?.[1])).toBeLessThan(256);
  });
});

describe('python3 and malformed kernel requests', () => {
  it('answers every call with wrong types with EINVAL (or the call\'s own errno), never a crash', async () => {
    const code = String.raw`
import _airlock, errno
ops = 'open close read write seek fstat ftruncate isatty stat readdir mkdir rmdir unlink rename symlink readlink chmod utimes truncate chdir umask pipe poll spawn wait kill sleep deadline'.split()
fields = 'atimeMs fd fds flags follow from handle mask max mode ms mtimeMs noHang offset path pid position request signal size target timeoutMs to whence program argv env cwd'.split()
bad = [None, 'x', [], {}, [1, 'a'], float('nan'), float('inf'), 2**70]
other = set()
for op in ops:
    for value in bad:
        request = {'op': op}
        for field in fields:
            request[field] = value
        try:
            _airlock.call(request)
            answer = 'answered'
        except OSError as e:
            answer = errno.errorcode.get(e.errno)
        # A string is a path's right type, pipe and deadline take no argument, and umask
        # without a mask reads it: those may be answered; anything else must be EINVAL.
        if answer != 'EINVAL' and value != 'x' and op not in ('pipe', 'deadline') and (op, value) != ('umask', None):
            other.add((op, repr(value), answer))
for request in (5, 'x', None, [], {'op': 5}, {'op': 'no-such-call'}):
    try:
        _airlock.call(request)
    except OSError as e:
        print(type(request).__name__, errno.errorcode.get(e.errno))
print(sorted(other))
print('survived')
`;
    const result = await sandbox.run(['python3', '-c', code], { timeoutMs: 120_000 });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.slice(0, 4)).toEqual(['int EINVAL', 'str EINVAL', 'NoneType EINVAL', 'list EINVAL']);
    // The only answers that are not EINVAL: wrong-typed calls that still make sense (none today).
    expect(lines.at(-2)).toBe('[]');
    expect(lines.at(-1)).toBe('survived');
  });
});
