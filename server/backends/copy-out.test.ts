// Copy-out is hostile input. CopyOutWriter's own decisions (every refusal names its
// reason; caps on bytes and entries; nothing planted in the root is followed or
// overwritten), and the same decisions as the VM backends reach them: an output archive
// made by GNU tar from a guest-like tree in a temp dir (a FIFO from mkfifo, a symlink, a
// hard link, files) plus entries only a hostile guest would write ('..', absolute paths,
// devices), read by readGuestResult exactly as from a run's output disk.
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CopyOutWriter, DEFAULT_COPY_OUT_CAPS, safeRelativeParts } from './copy-out.js';
import { readGuestResult } from './qemu/result.js';
import { parseSandboxSpec } from './spec.js';
import { resultEntries, tarOf } from './testing/archive.js';

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'airlock-copy-out-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** Every path under `root`, relative, sorted (what reached the host). */
function treeOf(root: string): string[] {
  if (!existsSync(root)) return [];
  const found: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      found.push(rel);
      if (lstatSync(join(dir, name)).isDirectory()) walk(join(dir, name), rel);
    }
  };
  walk(root, '');
  return found;
}

describe('safeRelativeParts', () => {
  it('refuses absolute paths, .., NUL, empty and over-long paths, naming the rule', () => {
    expect(safeRelativeParts('a/./b//c')).toEqual(['a', 'b', 'c']);
    expect(safeRelativeParts('/etc/passwd')).toBe('absolute path');
    expect(safeRelativeParts('dist/../../etc/passwd')).toBe("'..' in path");
    expect(safeRelativeParts('..')).toBe("'..' in path");
    expect(safeRelativeParts('a\0b')).toBe('NUL in path');
    expect(safeRelativeParts('./.')).toBe('empty path');
    expect(safeRelativeParts('x'.repeat(DEFAULT_COPY_OUT_CAPS.pathBytes + 1))).toBe(`path longer than ${DEFAULT_COPY_OUT_CAPS.pathBytes} bytes (GATE_LIMITS.copyOutPathBytes)`);
    // Bytes, not characters: a multi-byte name counts as what it costs on disk.
    expect(safeRelativeParts('é'.repeat(DEFAULT_COPY_OUT_CAPS.pathBytes / 2 + 1))).toMatch(/^path longer than/);
  });
});

describe('CopyOutWriter', () => {
  it('writes regular files and directories under its root', () => {
    const root = join(scratch, 'out');
    const writer = new CopyOutWriter(root);
    expect(writer.dir('dist')).toBe(true);
    expect(writer.file('dist/a.txt', Buffer.from('alpha'))).toBe(true);
    expect(writer.file('deep/er/b.txt', Buffer.from('beta'))).toBe(true);
    expect(readFileSync(join(root, 'deep/er/b.txt'), 'utf8')).toBe('beta');
    expect(writer.bytesWritten).toBe(9);
    expect(writer.refusals).toEqual([]);
  });

  it('refuses every kind but files and directories, and every unsafe name, with the reason', () => {
    const root = join(scratch, 'out');
    const writer = new CopyOutWriter(root);
    expect(writer.admit('dist/link', 'symlink', 0, '/etc/passwd')).toBe(false);
    expect(writer.admit('dist/hard', 'hardlink', 0)).toBe(false);
    expect(writer.admit('dist/tty', 'device', 0)).toBe(false);
    expect(writer.admit('dist/pipe', 'fifo', 0)).toBe(false);
    expect(writer.file('../escape.txt', Buffer.from('x'))).toBe(false);
    expect(writer.file('/etc/cron.d/evil', Buffer.from('x'))).toBe(false);
    expect(writer.dir('a\0b')).toBe(false);
    expect(writer.refusals).toEqual([
      '"dist/link": symlink to "/etc/passwd" refused',
      '"dist/hard": hard link refused',
      '"dist/tty": device refused (only regular files and directories are copied out)',
      '"dist/pipe": fifo refused (only regular files and directories are copied out)',
      `"../escape.txt": '..' in path`,
      '"/etc/cron.d/evil": absolute path',
      '"a\\u0000b": NUL in path',
    ]);
    expect(treeOf(root)).toEqual([]);
    expect(existsSync(join(scratch, 'escape.txt'))).toBe(false);
  });

  it('caps bytes: a file that would pass the cap is refused before any byte is written', () => {
    const root = join(scratch, 'out');
    const writer = new CopyOutWriter(root, { bytes: 10, entries: 100, pathBytes: 100 });
    expect(writer.file('a', Buffer.from('123456'))).toBe(true);
    expect(writer.file('b', Buffer.from('123456'))).toBe(false);
    expect(writer.file('c', Buffer.from('1234'))).toBe(true);
    expect(writer.refusals).toEqual(['"b": 6 bytes would pass the copy-out cap of 10 bytes (GATE_LIMITS.copyOutBytes)']);
    expect(treeOf(root)).toEqual(['a', 'c']);
    expect(writer.bytesWritten).toBe(10);
  });

  it('caps entries: past the cap every entry is refused, directories included', () => {
    const root = join(scratch, 'out');
    const writer = new CopyOutWriter(root, { bytes: 1000, entries: 3, pathBytes: 100 });
    expect([writer.dir('d'), writer.file('d/1', Buffer.from('1')), writer.file('d/2', Buffer.from('2')), writer.file('d/3', Buffer.from('3')), writer.dir('e')]).toEqual([true, true, true, false, false]);
    expect(writer.refusals).toEqual(['"d/3": more than 3 entries (GATE_LIMITS.copyOutEntries)', '"e": more than 3 entries (GATE_LIMITS.copyOutEntries)']);
    expect(treeOf(root)).toEqual(['d', 'd/1', 'd/2']);
  });

  it('a sink refuses more bytes than the file declared (the size was admitted against the cap)', () => {
    const writer = new CopyOutWriter(join(scratch, 'out'));
    const sink = writer.openFile('f', 3);
    if (sink === false) throw new Error('refused');
    try {
      sink.write(Buffer.from('abc'));
      expect(() => sink.write(Buffer.from('d'))).toThrow(/f: more bytes than declared/);
    } finally {
      sink.close();
    }
    expect(readFileSync(join(scratch, 'out/f'), 'utf8')).toBe('abc');
  });

  it('follows and overwrites nothing already in its root: a planted symlink, file or non-directory parent', () => {
    const root = join(scratch, 'out');
    mkdirSync(root);
    const target = join(scratch, 'target.txt');
    writeFileSync(target, 'host file\n');
    symlinkSync(target, join(root, 'planted-link'));
    symlinkSync(scratch, join(root, 'planted-dir'));
    writeFileSync(join(root, 'existing'), 'kept\n');
    const writer = new CopyOutWriter(root);
    expect(writer.file('planted-link', Buffer.from('overwritten'))).toBe(false);
    expect(writer.file('planted-dir/through.txt', Buffer.from('x'))).toBe(false);
    expect(writer.file('existing', Buffer.from('overwritten'))).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('host file\n');
    expect(readFileSync(join(root, 'existing'), 'utf8')).toBe('kept\n');
    expect(existsSync(join(scratch, 'through.txt'))).toBe(false);
    expect(writer.refusals).toEqual(['"planted-link": cannot create: EEXIST', '"planted-dir/through.txt": a parent is not a directory', '"existing": cannot create: EEXIST']);
  });

  it('keeps at most 100 refusals (a guest cannot grow the run record without bound)', () => {
    const writer = new CopyOutWriter(join(scratch, 'out'));
    for (let i = 0; i < 150; i++) writer.admit(`l${i}`, 'symlink', 0);
    expect(writer.refusals).toHaveLength(100);
  });
});

describe('copy-out from a guest output archive (readGuestResult)', () => {
  const spec = parseSandboxSpec({ phases: [{ name: 'build', argv: ['true'] }], copyOut: ['/home/user/work/dist'] });

  /** A guest-like root: the agent's results and a dist/ with a FIFO, links and files. */
  function guestTree(): string {
    const guest = join(scratch, 'guest');
    const dist = join(guest, 'home/user/work/dist');
    mkdirSync(join(dist, 'sub'), { recursive: true });
    mkdirSync(join(guest, '.airlock-result/logs'), { recursive: true });
    writeFileSync(join(guest, '.airlock-result/meta'), 'phase 1 0 12\ntimedout 0\noom 0\nend\n');
    writeFileSync(join(guest, '.airlock-result/logs/1.out'), 'built\n');
    writeFileSync(join(dist, 'app.js'), 'console.log(1)\n');
    writeFileSync(join(dist, 'sub/data.json'), '{}\n');
    execFileSync('mkfifo', [join(dist, 'pipe')]);
    symlinkSync('/etc/passwd', join(dist, 'passwd'));
    linkSync(join(dist, 'app.js'), join(dist, 'z-hardlink.js'));
    writeFileSync(join(guest, 'home/user/work/secret.txt'), 'outside the copy-out path\n');
    return guest;
  }

  it('GNU tar of a tree with a FIFO, a symlink and a hard link: only the regular files and directories land', async () => {
    const guest = guestTree();
    const disk = join(scratch, 'output.img');
    // As guest/agent.sh packs it (without --hard-dereference, so the hard link stays a link entry).
    execFileSync('tar', ['-c', '-f', disk, '--format=gnu', '--sort=name', '-C', guest, '.airlock-result', 'home/user/work/dist', 'home/user/work/secret.txt']);
    const out = join(scratch, 'out');
    const writer = new CopyOutWriter(out);
    const result = await readGuestResult(disk, spec, writer);
    expect(result.problem).toBeNull();
    expect(result.meta).toMatchObject({ complete: true, phases: [{ n: 1, exitCode: 0, durationMs: 12 }] });
    expect(treeOf(out)).toEqual(['home', 'home/user', 'home/user/work', 'home/user/work/dist', 'home/user/work/dist/app.js', 'home/user/work/dist/sub', 'home/user/work/dist/sub/data.json']);
    const refusals = writer.refusals.join('\n');
    expect(refusals).toContain('"home/user/work/dist/pipe": fifo refused');
    expect(refusals).toContain('"home/user/work/dist/passwd": symlink to "/etc/passwd" refused');
    expect(refusals).toContain('"home/user/work/dist/z-hardlink.js": hard link refused');
    expect(refusals).toContain('"home/user/work/secret.txt": other refused');
  });

  it("hostile entries — '..', absolute paths, devices, hard links, over-long names — never reach the host", async () => {
    const archive = await tarOf([
      ...resultEntries([{ exitCode: 0 }]),
      { header: { name: 'home/user/work/dist/', type: 'directory' } },
      { header: { name: 'home/user/work/dist/ok.txt', type: 'file' }, data: 'fine\n' },
      { header: { name: 'home/user/work/dist/../../../../escape.txt', type: 'file' }, data: 'escaped\n' },
      { header: { name: 'home/user/work/dist/sub/../../dist2.txt', type: 'file' }, data: 'sideways\n' },
      { header: { name: '/home/user/work/dist/abs.txt', type: 'file' }, data: 'absolute\n' },
      { header: { name: 'home/user/work/dist/null', type: 'character-device', devmajor: 1, devminor: 3 } },
      { header: { name: 'home/user/work/dist/sda', type: 'block-device', devmajor: 8, devminor: 0 } },
      { header: { name: `home/user/work/dist/${'n'.repeat(1100)}`, type: 'file' }, data: 'long\n' },
      { header: { name: 'home/user/work/dist/shadow', type: 'link', linkname: '/etc/shadow' } },
    ]);
    const disk = join(scratch, 'output.img');
    writeFileSync(disk, archive);
    const out = join(scratch, 'out');
    const writer = new CopyOutWriter(out);
    const result = await readGuestResult(disk, spec, writer);
    expect(result.problem).toBeNull();
    expect(treeOf(out)).toEqual(['home', 'home/user', 'home/user/work', 'home/user/work/dist', 'home/user/work/dist/ok.txt']);
    expect(existsSync(join(scratch, 'escape.txt'))).toBe(false);
    expect(writer.refusals).toEqual([
      `"home/user/work/dist/../../../../escape.txt": '..' in path`,
      `"home/user/work/dist/sub/../../dist2.txt": '..' in path`,
      '"/home/user/work/dist/abs.txt": absolute path',
      '"home/user/work/dist/null": device refused (only regular files and directories are copied out)',
      '"home/user/work/dist/sda": device refused (only regular files and directories are copied out)',
      `${JSON.stringify(`home/user/work/dist/${'n'.repeat(1100)}`)}: path longer than 1024 bytes (GATE_LIMITS.copyOutPathBytes)`,
      '"home/user/work/dist/shadow": hard link refused',
    ]);
  });

  it('caps from the archive: bytes past the cap and entries past the cap are refused, the rest kept', async () => {
    const files = Array.from({ length: 6 }, (_, i) => ({ header: { name: `home/user/work/dist/f${i}`, type: 'file' as const }, data: 'x'.repeat(40) }));
    const disk = join(scratch, 'output.img');
    writeFileSync(disk, await tarOf([...resultEntries([{ exitCode: 0 }]), ...files]));
    const byBytes = new CopyOutWriter(join(scratch, 'bytes'), { bytes: 100, entries: 100, pathBytes: 1024 });
    await readGuestResult(disk, spec, byBytes);
    expect(treeOf(join(scratch, 'bytes', 'home/user/work/dist'))).toEqual(['f0', 'f1']);
    expect(byBytes.bytesWritten).toBe(80);
    expect(byBytes.refusals).toHaveLength(4);
    expect(byBytes.refusals[0]).toBe('"home/user/work/dist/f2": 40 bytes would pass the copy-out cap of 100 bytes (GATE_LIMITS.copyOutBytes)');
    const byEntries = new CopyOutWriter(join(scratch, 'entries'), { bytes: 10_000, entries: 4, pathBytes: 1024 });
    await readGuestResult(disk, spec, byEntries);
    expect(treeOf(join(scratch, 'entries', 'home/user/work/dist'))).toEqual(['f0', 'f1', 'f2', 'f3']);
    expect(byEntries.refusals).toEqual(['"home/user/work/dist/f4": more than 4 entries (GATE_LIMITS.copyOutEntries)', '"home/user/work/dist/f5": more than 4 entries (GATE_LIMITS.copyOutEntries)']);
  });

  it('a file whose header lies about its size is cut where the archive says; a truncated archive is reported', async () => {
    const good = await tarOf([...resultEntries([{ exitCode: 0 }]), { header: { name: 'home/user/work/dist/big', type: 'file' }, data: 'y'.repeat(5000) }]);
    const disk = join(scratch, 'output.img');
    // Cut inside the file's data: the reader reports it and keeps what came before.
    writeFileSync(disk, good.subarray(0, good.length - 1024 - 3000));
    const writer = new CopyOutWriter(join(scratch, 'out'));
    const result = await readGuestResult(disk, spec, writer);
    expect(result.meta.complete).toBe(true);
    expect(result.problem).toMatch(/^the output archive could not be read to its end/);
  });
});
