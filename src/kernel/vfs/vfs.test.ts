import { describe, expect, it } from 'vitest';
import { Errno, KernelError } from '../errno.js';
import { bootFilesystem } from './boot.js';
import type { DirInode, FileInode } from './inode.js';
import { FsLimitError } from './limits.js';
import { decodePathBytes, encodePathString } from './path.js';
import { KERNEL_CALLER, type VfsCaller } from './caller.js';
import { MAX_SYMLINK_HOPS, ROOT_INO, Vfs } from './vfs.js';

const USER: VfsCaller = { pid: 7, umask: 0o022, uid: 1000, gid: 1000 };
const NO_PROCESSES = { pids: () => [7], view: () => undefined, uptimeSeconds: () => 1, memoryBytes: () => 1 << 30 };

function boot(limits: { fsBytes?: number; fileCount?: number } = {}) {
  const vfs = new Vfs({ fsBytes: limits.fsBytes ?? 1 << 20, fileCount: limits.fileCount ?? Infinity });
  const result = bootFilesystem(vfs, { tools: ['cat', 'ls'], hostname: 'sandbox', kernelVersion: 'test' }, NO_PROCESSES);
  const home = vfs.getOrThrow(result.homeIno) as DirInode;
  return { vfs, home, ...result };
}

function errnoOf(fn: () => unknown): number {
  try {
    fn();
  } catch (error) {
    if (error instanceof KernelError) return error.errno;
    throw error;
  }
  throw new Error('expected a KernelError');
}

function write(vfs: Vfs, dir: DirInode, name: string, text: string): FileInode {
  const file = vfs.createFile(dir, name, USER);
  vfs.writeAt(file.ino, 0, new TextEncoder().encode(text));
  return vfs.getOrThrow(file.ino) as FileInode;
}

function read(vfs: Vfs, path: string): string {
  const inode = vfs.resolve(ROOT_INO, path, true, USER);
  if (inode.kind !== 'file') throw new Error(`${path} is not a file`);
  return new TextDecoder().decode(inode.data.subarray(0, inode.size));
}

describe('paths', () => {
  it('never lets .. climb above the root', () => {
    const { vfs, homeIno } = boot();
    expect(vfs.resolve(homeIno, '../../../../../../etc/passwd', true, USER).kind).toBe('file');
    expect(vfs.resolve(ROOT_INO, '/..', true, USER).ino).toBe(ROOT_INO);
    expect(vfs.resolve(ROOT_INO, '/../../..', true, USER).ino).toBe(ROOT_INO);
  });

  it('treats a trailing slash as "must be a directory"', () => {
    const { vfs, home } = boot();
    write(vfs, home, 'f', 'x');
    expect(errnoOf(() => vfs.resolve(home.ino, 'f/', true, USER))).toBe(Errno.NOTDIR);
    expect(vfs.resolve(ROOT_INO, '/tmp/', true, USER).kind).toBe('dir');
  });

  it('rejects empty paths and over-long names', () => {
    const { vfs, home } = boot();
    expect(errnoOf(() => vfs.resolve(home.ino, '', true, USER))).toBe(Errno.NOENT);
    expect(errnoOf(() => vfs.resolveParent(home.ino, 'x'.repeat(256), USER))).toBe(Errno.NAMETOOLONG);
    expect(errnoOf(() => vfs.resolve(home.ino, 'a/'.repeat(3000), true, USER))).toBe(Errno.NAMETOOLONG);
  });

  it('keeps names that are not UTF-8 byte for byte', () => {
    const bytes = new Uint8Array([0x66, 0xff, 0xc3, 0x28, 0x00, 0xe2, 0x82, 0xac]);
    expect(encodePathString(decodePathBytes(bytes))).toEqual(bytes);
    const { vfs, home } = boot();
    write(vfs, home, decodePathBytes(new Uint8Array([0x61, 0xfe])), 'odd');
    expect([...home.entries.keys()].map((n) => encodePathString(n))).toEqual([new Uint8Array([0x61, 0xfe])]);
  });
});

describe('symlinks', () => {
  it('resolve relative to the link and stop after 40 hops with ELOOP', () => {
    const { vfs, home } = boot();
    write(vfs, home, 'target', 'ok');
    vfs.symlink(vfs.getOrThrow(home.ino) as DirInode, 'l0', 'target', USER);
    for (let i = 1; i <= MAX_SYMLINK_HOPS; i++) vfs.symlink(vfs.getOrThrow(home.ino) as DirInode, `l${i}`, `l${i - 1}`, USER);
    expect(read(vfs, `/home/user/l${MAX_SYMLINK_HOPS - 1}`)).toBe('ok');
    expect(errnoOf(() => vfs.resolve(home.ino, `l${MAX_SYMLINK_HOPS}`, true, USER))).toBe(Errno.LOOP);
  });

  it('turn loops and self-references into ELOOP, not a hang', () => {
    const { vfs, home } = boot();
    vfs.symlink(home, 'self', 'self', USER);
    vfs.symlink(vfs.getOrThrow(home.ino) as DirInode, 'a', 'b', USER);
    vfs.symlink(vfs.getOrThrow(home.ino) as DirInode, 'b', 'a/x', USER);
    expect(errnoOf(() => vfs.resolve(home.ino, 'self', true, USER))).toBe(Errno.LOOP);
    expect(errnoOf(() => vfs.resolve(home.ino, 'a/y', true, USER))).toBe(Errno.LOOP);
    expect(vfs.resolve(home.ino, 'self', false, USER).kind).toBe('symlink');
  });

  it('cannot escape the root through an absolute or climbing target', () => {
    const { vfs, home } = boot();
    vfs.symlink(home, 'up', '../../../../..', USER);
    expect(vfs.resolve(home.ino, 'up', true, USER).ino).toBe(ROOT_INO);
    expect(vfs.resolve(home.ino, 'up/etc/hostname', true, USER).kind).toBe('file');
  });
});

describe('writable trees', () => {
  it('allows changes only under /home/user and /tmp', () => {
    const { vfs, home } = boot();
    const etc = vfs.resolve(ROOT_INO, '/etc', true, USER) as DirInode;
    const root = vfs.getOrThrow(ROOT_INO) as DirInode;
    expect(errnoOf(() => vfs.createFile(etc, 'x', USER))).toBe(Errno.ROFS);
    expect(errnoOf(() => vfs.mkdir(root, 'opt', USER))).toBe(Errno.ROFS);
    expect(errnoOf(() => vfs.unlink(etc, 'passwd'))).toBe(Errno.ROFS);
    const passwd = vfs.resolve(ROOT_INO, '/etc/passwd', true, USER);
    expect(errnoOf(() => vfs.writeAt(passwd.ino, 0, new Uint8Array([1])))).toBe(Errno.ROFS);
    expect(errnoOf(() => vfs.chmod(passwd.ino, 0o777))).toBe(Errno.ROFS);
    const file = write(vfs, home, 'mine', 'x');
    expect(errnoOf(() => vfs.rename(vfs.getOrThrow(home.ino) as DirInode, 'mine', etc, 'mine'))).toBe(Errno.ROFS);
    const tmp = vfs.resolve(ROOT_INO, '/tmp', true, USER) as DirInode;
    vfs.rename(vfs.getOrThrow(home.ino) as DirInode, 'mine', tmp, 'moved');
    expect(vfs.resolve(ROOT_INO, '/tmp/moved', true, USER).ino).toBe(file.ino);
  });

  it('has the devices and a /proc that follows the caller', () => {
    const { vfs } = boot();
    for (const device of ['null', 'zero', 'random', 'urandom']) expect(vfs.resolve(ROOT_INO, `/dev/${device}`, true, USER).kind).toBe('chardev');
    expect(vfs.resolve(ROOT_INO, '/dev/stdin', false, USER).kind).toBe('symlink');
    const self = vfs.resolve(ROOT_INO, '/proc/self', false, USER);
    expect(self.kind === 'symlink' && self.target).toBe('7');
    expect(read(vfs, '/proc/version')).toBe('test\n');
  });
});

describe('limits', () => {
  it('refuses a write past fsBytes with ENOSPC, naming the limit, and keeps usage right', () => {
    const { vfs, home } = boot({ fsBytes: 100 });
    const file = write(vfs, home, 'f', 'x'.repeat(60));
    const error = (() => {
      try {
        vfs.writeAt(file.ino, 60, new Uint8Array(50));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(FsLimitError);
    expect((error as FsLimitError).errno).toBe(Errno.NOSPC);
    expect((error as FsLimitError).message).toContain('fsBytes is 100');
    expect(vfs.meter.usage.bytes).toBe(60);
    vfs.truncate(file.ino, 10);
    expect(vfs.meter.usage.bytes).toBe(10);
    vfs.writeAt(file.ino, 10, new Uint8Array(90));
    expect(vfs.meter.usage.bytes).toBe(100);
  });

  it('refuses a create past fileCount', () => {
    const { vfs, home } = boot({ fileCount: 2 });
    vfs.createFile(home, 'a', USER);
    vfs.mkdir(vfs.getOrThrow(home.ino) as DirInode, 'b', USER);
    expect(errnoOf(() => vfs.symlink(vfs.getOrThrow(home.ino) as DirInode, 'c', 'a', USER))).toBe(Errno.NOSPC);
    vfs.unlink(vfs.getOrThrow(home.ino) as DirInode, 'a');
    expect(() => vfs.createFile(vfs.getOrThrow(home.ino) as DirInode, 'c', USER)).not.toThrow();
  });
});

describe('snapshots', () => {
  it('restore brings back content, names and usage exactly', () => {
    const { vfs, home } = boot();
    write(vfs, home, 'keep', 'original');
    const snap = vfs.snapshot();
    const keep = vfs.resolve(home.ino, 'keep', true, USER);
    vfs.writeAt(keep.ino, 0, new TextEncoder().encode('CHANGED!'));
    write(vfs, vfs.getOrThrow(home.ino) as DirInode, 'new', 'x'.repeat(500));
    vfs.mkdir(vfs.getOrThrow(home.ino) as DirInode, 'dir', USER);
    expect(read(vfs, '/home/user/keep')).toBe('CHANGED!');
    vfs.restore(snap);
    expect(read(vfs, '/home/user/keep')).toBe('original');
    expect(errnoOf(() => vfs.resolve(ROOT_INO, '/home/user/new', true, USER))).toBe(Errno.NOENT);
    expect(vfs.meter.usage.bytes).toBe(8);
  });

  it('shares unchanged inodes with the snapshot (copy on write)', () => {
    const { vfs, home } = boot({ fsBytes: 1 << 30 });
    const dir = vfs.mkdir(home, 'many', USER);
    for (let i = 0; i < 2000; i++) write(vfs, vfs.getOrThrow(dir.ino) as DirInode, `f${i}`, `content ${i}`);
    const before = vfs.resolve(ROOT_INO, '/home/user/many/f5', true, USER);
    vfs.snapshot();
    expect(vfs.resolve(ROOT_INO, '/home/user/many/f5', true, USER)).toBe(before);
    vfs.writeAt(before.ino, 0, new TextEncoder().encode('X'));
    const after = vfs.resolve(ROOT_INO, '/home/user/many/f5', true, USER);
    expect(after).not.toBe(before);
    expect(vfs.resolve(ROOT_INO, '/home/user/many/f6', true, USER)).toBe(vfs.resolve(ROOT_INO, '/home/user/many/f6', true, USER));
  });

  it('records what changed for the host, once', () => {
    const { vfs, home } = boot();
    expect(vfs.takeChanged()).toEqual([]);
    const file = write(vfs, home, 'f', 'x');
    expect(vfs.takeChanged()).toEqual([home.ino, file.ino].sort((a, b) => a - b));
    expect(vfs.takeChanged()).toEqual([]);
  });
});

describe('directory operations', () => {
  it('follow POSIX rename and rmdir rules', () => {
    const { vfs, home } = boot();
    const a = vfs.mkdir(home, 'a', USER);
    vfs.mkdir(a, 'sub', USER);
    const h = () => vfs.getOrThrow(home.ino) as DirInode;
    expect(errnoOf(() => vfs.rename(h(), 'a', vfs.getOrThrow(a.ino) as DirInode, 'inside'))).toBe(Errno.INVAL);
    const b = vfs.mkdir(h(), 'b', USER);
    write(vfs, b, 'full', 'x');
    expect(errnoOf(() => vfs.rename(h(), 'a', h(), 'b'))).toBe(Errno.NOTEMPTY);
    expect(errnoOf(() => vfs.rmdir(h(), 'b'))).toBe(Errno.NOTEMPTY);
    write(vfs, h(), 'file', 'y');
    expect(errnoOf(() => vfs.rename(h(), 'a', h(), 'file'))).toBe(Errno.NOTDIR);
    expect(errnoOf(() => vfs.rename(h(), 'file', h(), 'a'))).toBe(Errno.ISDIR);
    expect(errnoOf(() => vfs.unlink(h(), 'a'))).toBe(Errno.ISDIR);
    expect(errnoOf(() => vfs.rmdir(h(), 'file'))).toBe(Errno.NOTDIR);
    vfs.rename(h(), 'file', h(), 'renamed');
    expect(read(vfs, '/home/user/renamed')).toBe('y');
  });

  it('keeps an unlinked file readable while it is open', () => {
    const { vfs, home } = boot();
    const file = write(vfs, home, 'tmpfile', 'still here');
    vfs.opened(file.ino);
    vfs.unlink(vfs.getOrThrow(home.ino) as DirInode, 'tmpfile');
    expect(errnoOf(() => vfs.resolve(home.ino, 'tmpfile', true, USER))).toBe(Errno.NOENT);
    expect(new TextDecoder().decode((vfs.getOrThrow(file.ino) as FileInode).data.subarray(0, 10))).toBe('still here');
    vfs.closed(file.ino);
    expect(vfs.get(file.ino)).toBeUndefined();
    expect(vfs.meter.usage.bytes).toBe(0);
  });

  it('lets the kernel caller read but not write system files', () => {
    const { vfs } = boot();
    expect(vfs.resolve(ROOT_INO, '/usr/bin/cat', true, KERNEL_CALLER).kind).toBe('file');
    expect(vfs.resolve(ROOT_INO, '/bin/ls', true, KERNEL_CALLER).kind).toBe('file');
  });
});
