// The tar writer/reader round trip (with long names and gzip), and import validation.

import { describe, expect, it } from 'vitest';
import { validateImport } from './import-validation.js';
import { gunzip, gzip, isGzip, readTar, TarFormatError, writeTar, type TarEntry } from './tar.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('tar', () => {
  it('round-trips files, directories, symlinks, modes, times and long names through gzip', async () => {
    const longName = `${'deep/'.repeat(40)}file-with-a-long-name.txt`;
    const entries: TarEntry[] = [
      { path: 'src', kind: 'dir', mode: 0o755, mtimeMs: 1_700_000_000_000 },
      { path: 'src/run.sh', kind: 'file', mode: 0o755, mtimeMs: 1_700_000_001_000, data: bytes('echo hi\n') },
      { path: 'empty', kind: 'file', mode: 0o600, mtimeMs: 0, data: new Uint8Array(0) },
      { path: 'link', kind: 'symlink', mode: 0o777, mtimeMs: 0, target: 'src/run.sh' },
      { path: longName, kind: 'file', mode: 0o644, mtimeMs: 0, data: new Uint8Array(1000).fill(7) },
    ];
    const archive = await gzip(writeTar(entries));
    expect(isGzip(archive)).toBe(true);
    const read = readTar(await gunzip(archive));
    expect(read).toEqual(entries);
  });

  it('rejects a corrupted header', () => {
    const archive = writeTar([{ path: 'a', kind: 'file', mode: 0o644, mtimeMs: 0, data: bytes('x') }]);
    archive[0] = 'b'.charCodeAt(0);
    expect(() => readTar(archive)).toThrow(TarFormatError);
  });
});

describe('validateImport', () => {
  const limits = { fsBytes: 100, fileCount: 10 };
  const file = (path: string, size = 1, mode = 0o644): TarEntry => ({ path, kind: 'file', mode, mtimeMs: 0, data: new Uint8Array(size) });

  it('accepts and normalizes a clean archive, keeping only permission bits', () => {
    const check = validateImport([file('./a/b.txt', 1, 0o4755)], limits);
    expect(check).toMatchObject({ ok: true, bytes: 1 });
    if (check.ok) expect(check.entries[0]).toMatchObject({ path: 'a/b.txt', mode: 0o755 });
  });

  it('rejects escapes, absolute paths, duplicates, bad modes and outward symlinks', () => {
    const check = validateImport(
      [
        file('../etc/passwd'),
        file('/etc/passwd'),
        file('a/../../x'),
        file('dup'),
        file('dup'),
        file('m', 1, 0o17777),
        { path: 'l', kind: 'symlink', mode: 0o777, mtimeMs: 0, target: '../../etc' },
        { path: 'l2', kind: 'symlink', mode: 0o777, mtimeMs: 0, target: '/etc/passwd' },
      ],
      limits,
    );
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.errors).toHaveLength(7);
  });

  it('rejects an archive over the limits', () => {
    expect(validateImport([file('big', 101)], limits).ok).toBe(false);
    expect(validateImport(Array.from({ length: 11 }, (_, i) => file(`f${i}`)), limits).ok).toBe(false);
  });
});

describe('touchCommands', () => {
  it('groups entries by time, files before directories (deepest first), within a size', async () => {
    const { touchCommands } = await import('./workspace-files.js');
    const entry = (path: string, kind: 'file' | 'dir', seconds: number): TarEntry => ({ path, kind, mode: 0o644, mtimeMs: seconds * 1000 + 999 });
    const commands = touchCommands([entry('a', 'dir', 5), entry('a/b', 'dir', 5), entry('a/b/x', 'file', 7), entry("a/it's", 'file', 7), entry('y', 'file', 3)], '/w');
    expect(commands).toEqual([
      "touch -h -c -m -d @3 -- '/w/y'",
      "touch -h -c -m -d @7 -- '/w/a/b/x' '/w/a/it'\\''s'",
      "touch -h -c -m -d @5 -- '/w/a/b' '/w/a'",
    ]);
    expect(touchCommands(Array.from({ length: 50 }, (_, i) => entry(`f${i}`, 'file', 1)), '/w', 100).every((c) => c.length <= 100)).toBe(true);
  });
});
