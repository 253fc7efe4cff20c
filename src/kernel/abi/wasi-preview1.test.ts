// Each row of the WASI capability table (docs/architecture.md §4), driven by the probe program.

import { describe, expect, it } from 'vitest';
import { createTestKernel } from '../../../tests/helpers/test-kernel.js';
import { Errno } from '../errno.js';

const t = createTestKernel();

describe('file I/O: fd_read fd_write fd_seek fd_tell fd_close path_open', () => {
  it('writes, reads back and seeks', async () => {
    expect((await t.run(['probe', 'write', 'f.txt', 'hello world'])).out).toBe('ok\n');
    expect((await t.run(['probe', 'read', 'f.txt'])).out).toBe('hello world');
    expect((await t.run(['probe', 'seek', 'f.txt', '6'])).out).toBe('6 1 w\nend 11\n');
    expect((await t.run(['probe', 'append', 'f.txt', '!'])).out).toBe('ok\n');
    expect((await t.run(['probe', 'read', 'f.txt'])).out).toBe('hello world!');
  });

  it('reads stdin and reports errnos of failed opens', async () => {
    expect((await t.run(['probe', 'cat'], { stdin: 'piped in\n' })).out).toBe('piped in\n');
    expect((await t.run(['probe', 'read', 'missing'])).out).toBe(`err ${Errno.NOENT}\n`);
    expect((await t.run(['probe', 'write', '/etc/nope', 'x'])).out).toBe(`err ${Errno.ROFS}\n`);
    expect((await t.run(['probe', 'read', '/tmp'])).out).toBe(`err ${Errno.ISDIR}\n`);
  });
});

describe('directories: fd_readdir path_create_directory path_remove_directory path_rename path_unlink_file', () => {
  it('creates, lists, renames and removes', async () => {
    expect((await t.run(['probe', 'mkdir', 'd'])).out).toBe('ok\n');
    expect((await t.run(['probe', 'mkdir', 'd'])).out).toBe(`err ${Errno.EXIST}\n`);
    await t.run(['probe', 'write', 'd/one', '1']);
    await t.run(['probe', 'write', 'd/two', '2']);
    expect((await t.run(['probe', 'ls', 'd'])).out).toBe('one\ntwo\n');
    expect((await t.run(['probe', 'rename', 'd/one', 'd/three'])).out).toBe('ok\n');
    expect((await t.run(['probe', 'ls', 'd'])).out).toBe('three\ntwo\n');
    expect((await t.run(['probe', 'rmdir', 'd'])).out).toBe(`err ${Errno.NOTEMPTY}\n`);
    expect((await t.run(['probe', 'unlink', 'd/three'])).out).toBe('ok\n');
    expect((await t.run(['probe', 'unlink', 'd/two'])).out).toBe('ok\n');
    expect((await t.run(['probe', 'rmdir', 'd'])).out).toBe('ok\n');
  });

  it('lists large directories completely through several fd_readdir calls', async () => {
    await t.run(['probe', 'mkdir', 'big']);
    for (let i = 0; i < 300; i++) t.kernel.fs.writeFile(`big/file-with-a-longish-name-${String(i).padStart(4, '0')}`, new Uint8Array(0));
    const listing = (await t.run(['probe', 'ls', 'big'])).out.trim().split('\n');
    expect(listing).toHaveLength(300);
  });

  it('pages through thousands of entries, one-letter names included, each exactly once', async () => {
    // Rust's std reads 128 bytes per fd_readdir: about five one-letter entries, or four short
    // ones, a call; each call is given only what can fit.
    await t.run(['probe', 'mkdir', 'many']);
    const names = [...'abcdefghijklmnopqrstuvwxyz', ...Array.from({ length: 3000 }, (_, i) => `n${i}`)];
    for (const name of names) t.kernel.fs.writeFile(`many/${name}`, new Uint8Array(0));
    const listing = (await t.run(['probe', 'ls', 'many'])).out.trim().split('\n');
    expect(listing).toEqual([...names].sort());
  });
});

describe('metadata: fd_filestat_get path_filestat_get fd_fdstat_get fd_prestat_get fd_prestat_dir_name', () => {
  it('stats files and directories and finds its cwd through the preopen', async () => {
    await t.run(['probe', 'write', 'sized', '12345']);
    expect((await t.run(['probe', 'stat', 'sized'])).out).toMatch(/^file 5 \d+\n$/);
    expect((await t.run(['probe', 'stat', '/tmp'])).out).toMatch(/^dir 4096 /);
    expect((await t.run(['probe', 'pwd'])).out).toBe('/home/user\n');
    expect((await t.run(['probe', 'pwd'], { cwd: '/tmp' })).out).toBe('/tmp\n');
  });

  it('reports stdio as pipes (not terminals) when the run has no terminal', async () => {
    expect((await t.run(['probe', 'isatty'])).out).toBe('0 0\n1 0\n2 0\n');
  });
});

describe('symlinks: path_symlink path_readlink', () => {
  it('creates and reads links, and detects loops', async () => {
    expect((await t.run(['probe', 'symlink', 'sized', '/home/user/link'])).out).toBe('errno 0\n');
    expect((await t.run(['probe', 'readlink', 'link'])).out).toBe('sized\n');
    expect((await t.run(['probe', 'read', 'link'])).out).toBe('12345');
    await t.run(['probe', 'symlink', 'loop', '/home/user/loop']);
    expect((await t.run(['probe', 'read', 'loop'])).out).toBe(`err ${Errno.LOOP}\n`);
    expect((await t.run(['probe', 'lstat', 'link'])).out).toMatch(/^symlink 5 /);
  });
});

describe('clock, random, args, env, proc_exit', () => {
  it('has a real clock that advances while sleeping, and random bytes', async () => {
    expect((await t.run(['probe', 'clock'])).out).toBe('true true\n');
    expect((await t.run(['probe', 'random'])).out).toBe('16 true\n');
  });

  it('passes arguments and environment exactly', async () => {
    expect((await t.run(['probe', 'args', 'a b', '', 'ünïcode'])).out).toBe('[a b]\n[]\n[ünïcode]\n');
    expect((await t.run(['probe', 'args', '', 'a', ''])).out).toBe('[]\n[a]\n[]\n');
    const env = (await t.run(['probe', 'env'])).out;
    expect(env).toContain('HOME=/home/user\n');
    expect(env).toContain('PATH=/usr/local/bin:/usr/bin:/bin\n');
  });

  it('exits with the status given to proc_exit', async () => {
    expect((await t.run(['probe', 'exit', '42'])).exitCode).toBe(42);
    expect((await t.run(['probe', 'exit', '0'])).exitCode).toBe(0);
  });
});

describe('sync and times: fd_filestat_set_size path_filestat_set_times', () => {
  it('truncates and sets times for real', async () => {
    await t.run(['probe', 'write', 'trunc', 'abcdefgh']);
    expect((await t.run(['probe', 'truncate', 'trunc', '3'])).out).toBe('ok\n');
    expect((await t.run(['probe', 'read', 'trunc'])).out).toBe('abc');
    expect((await t.run(['probe', 'settimes', '/home/user/trunc', '1000000000'])).out).toBe('errno 0\n');
    expect((await t.run(['probe', 'stat', 'trunc'])).out).toBe('file 3 1000000000\n');
  });
});

describe('scheduling: sched_yield poll_oneoff', () => {
  it('yields and sleeps on clock subscriptions', async () => {
    expect((await t.run(['probe', 'yield'])).out).toBe('yielded\n');
    const started = performance.now();
    await t.run(['probe', 'sleep', '30']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});

describe('ENOSYS rows', () => {
  for (const call of ['sock_recv', 'sock_send', 'sock_accept', 'sock_shutdown', 'proc_raise', 'fd_pread', 'fd_pwrite', 'fd_renumber', 'path_link', 'poll_oneoff_fd']) {
    it(`${call} is ENOSYS`, async () => {
      expect((await t.run(['probe', 'raw', call])).out).toBe(`errno ${Errno.NOSYS}\n`);
    });
  }
});

describe('deadline check on every call', () => {
  it('ends a process that is still making syscalls after its deadline with 124', async () => {
    const result = await t.run(['probe', 'sleep', '5000'], { timeoutMs: 100 });
    expect(result.exitCode).toBe(124);
    expect(result.errorClass).toBe('timeout');
  });
});
