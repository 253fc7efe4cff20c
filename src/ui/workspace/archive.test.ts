// What an import accepts: only real, non-empty tar, tar.gz and zip archives within the limits.

import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ImportRefusedError, parseArchive } from './archive.js';
import { gzip, writeTar } from './tar.js';

const limits = { fsBytes: 1024 * 1024, fileCount: 100 };
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

async function refusal(data: Uint8Array): Promise<ImportRefusedError> {
  const error = await parseArchive(data, limits).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ImportRefusedError);
  return error as ImportRefusedError;
}

describe('parseArchive', () => {
  it('refuses a short text file (once read as an empty tar that replaced everything)', async () => {
    expect((await refusal(bytes('hello\n'))).summary).toBe('This file is not an archive');
  });

  it('refuses a long text file and a gzipped text file', async () => {
    expect((await refusal(bytes('x'.repeat(2000)))).summary).toBe('This file is not an archive');
    expect((await refusal(await gzip(bytes('just text\n')))).summary).toBe('This is a gzip file but not a compressed tar archive');
  });

  it('refuses an empty archive', async () => {
    expect((await refusal(writeTar([]))).summary).toBe('The archive is empty');
    expect((await refusal(zipSync({}))).summary).toBe('The archive is empty');
  });

  it('reads tar, tar.gz and zip', async () => {
    const tar = writeTar([{ path: 'a.txt', kind: 'file', mode: 0o755, mtimeMs: 0, data: bytes('A') }]);
    expect(await parseArchive(tar, limits)).toMatchObject({ format: 'tar', bytes: 1, entries: [{ path: 'a.txt', mode: 0o755 }] });
    expect((await parseArchive(await gzip(tar), limits)).format).toBe('tar.gz');
    const zip = await parseArchive(zipSync({ 'dir/': new Uint8Array(0), 'dir/b.txt': bytes('BB') }), limits);
    expect(zip.format).toBe('zip');
    expect(zip.entries.map((e) => [e.path, e.kind])).toEqual([['dir', 'dir'], ['dir/b.txt', 'file']]);
  });

  it('refuses a compressed archive that expands past the limits before holding it all', async () => {
    const huge = zipSync({ 'zeros.bin': new Uint8Array(3 * 1024 * 1024) });
    expect((await refusal(huge)).summary).toBe('The archive is too large');
    const tar = writeTar([{ path: 'zeros.bin', kind: 'file', mode: 0o644, mtimeMs: 0, data: new Uint8Array(3 * 1024 * 1024) }]);
    expect((await refusal(await gzip(tar))).summary).toBe('The archive is too large');
  });

  it('refuses escapes with every reason', async () => {
    const tar = writeTar([{ path: '../x', kind: 'file', mode: 0o644, mtimeMs: 0, data: bytes('x') }]);
    const error = await refusal(tar);
    expect(error.reasons.join('\n')).toMatch(/would leave the workspace/);
  });
});
