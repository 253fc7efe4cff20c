// `--dir` copy-in (issue 20): symlinks are copied as symlinks whatever the tool allowlist
// says, and a file the host swaps for a symlink while the copy runs is never followed out
// of the directory.

import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyDirInto } from './copy-dir.js';
import { Sandbox, drainWarmPool } from './index.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-copy-dir-'));
const secret = join(root, 'host-secret');
writeFileSync(secret, 'host-secret-canary');

afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await drainWarmPool();
});

describe('copyDirInto', () => {
  it('copies files, directories and symlinks as symlinks, even when ln is not allowed', async () => {
    const source = join(root, 'tree');
    mkdirSync(join(source, 'sub'), { recursive: true });
    writeFileSync(join(source, 'sub', 'a.txt'), 'a\n');
    symlinkSync(secret, join(source, 'out'));
    symlinkSync('sub/a.txt', join(source, 'in'));
    const sandbox = await Sandbox.create({ allowedTools: ['cat'] });
    try {
      expect(await copyDirInto(sandbox, source)).toBe(1);
      expect(await sandbox.stat('/home/user/out', { follow: false })).toMatchObject({ kind: 'symlink', target: secret });
      expect(await sandbox.stat('/home/user/in', { follow: false })).toMatchObject({ kind: 'symlink', target: 'sub/a.txt' });
      expect(await sandbox.readTextFile('/home/user/in')).toBe('a\n');
      // The outside link is only a name inside: the host file is not there.
      await expect(sandbox.readFile('/home/user/out')).rejects.toThrow(/no such file or directory/);
    } finally {
      await sandbox.destroy();
    }
  });

  it('never follows a file the host swaps for a symlink while it copies', async () => {
    const source = join(root, 'racy');
    mkdirSync(source);
    const names = Array.from({ length: 40 }, (_, i) => `f${i}`);
    for (const name of names) writeFileSync(join(source, name), 'plain\n');
    const sandbox = await Sandbox.create({});
    let swapping = true;
    // Between the listing and each open, entries flip between a file and a symlink to the secret.
    const swapper = (async () => {
      let round = 0;
      while (swapping) {
        const name = names[round % names.length] as string;
        const path = join(source, name);
        const spare = join(root, `spare-${round}`);
        if (round % 2 === 0) symlinkSync(secret, spare);
        else writeFileSync(spare, 'plain\n');
        renameSync(spare, path);
        round += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        await sandbox.mkdir(`/tmp/${attempt}`);
        await copyDirInto(sandbox, source, `/tmp/${attempt}`);
      }
    } finally {
      swapping = false;
      await swapper;
    }
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        for (const name of names) {
          const path = `/tmp/${attempt}/${name}`;
          const stat = await sandbox.stat(path, { follow: false });
          if (stat.kind === 'symlink') expect(stat.target).toBe(secret);
          else expect(await sandbox.readTextFile(path)).toBe('plain\n');
        }
      }
    } finally {
      await sandbox.destroy();
    }
  });
});
