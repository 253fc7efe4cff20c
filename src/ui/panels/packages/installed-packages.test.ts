import { describe, expect, it } from 'vitest';
import type { DirEntry } from '../../../protocol/messages.js';
import { PACKAGE_RECORDS, readInstalledPackages, SITE_PACKAGES } from './installed-packages.js';

function files(tree: Record<string, string | null>) {
  const encoder = new TextEncoder();
  return {
    async readDir(path: string): Promise<DirEntry[]> {
      const names = Object.keys(tree).filter((p) => p.startsWith(`${path}/`)).map((p) => p.slice(path.length + 1).split('/')[0] ?? '');
      if (names.length === 0) throw new Error(`ENOENT: ${path}`);
      return [...new Set(names)].map((name) => ({ name, kind: tree[`${path}/${name}`] === null || tree[`${path}/${name}`] === undefined ? 'dir' : 'file' }));
    },
    async readFile(path: string): Promise<Uint8Array> {
      const text = tree[path];
      if (typeof text !== 'string') throw new Error(`ENOENT: ${path}`);
      return encoder.encode(text);
    },
  };
}

describe('readInstalledPackages', () => {
  it('is empty when nothing was ever installed', async () => {
    expect(await readInstalledPackages(files({}))).toEqual([]);
  });

  it("lists pkg's records and pip's wheels, skipping what does not parse", async () => {
    const installed = await readInstalledPackages(
      files({
        [`${PACKAGE_RECORDS}/wcat.json`]: JSON.stringify({ name: 'wcat', version: '1.0', description: 'cat in C', commands: ['wcat'] }),
        [`${PACKAGE_RECORDS}/broken.json`]: '{',
        [`${SITE_PACKAGES}/hello_airlock-1.0.0.dist-info/METADATA`]: 'Name: hello-airlock\nVersion: 1.0.0\nSummary: says hello\n',
        [`${SITE_PACKAGES}/hello_airlock/__init__.py`]: '',
      }),
    );
    expect(installed).toEqual([
      { name: 'wcat', version: '1.0', kind: 'pkg', commands: ['wcat'], description: 'cat in C' },
      { name: 'hello_airlock', version: '1.0.0', kind: 'pip', commands: [], description: 'says hello' },
    ]);
  });
});
