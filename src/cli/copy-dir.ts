// Copies a directory of this machine into the sandbox: files with their modes, directories
// and symlinks (kept as symlinks), nothing that is not one of those.

import { lstat, readFile, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sandbox } from '../host/node/index.js';

export async function copyDirInto(sandbox: Sandbox, hostDir: string, sandboxDir = '/home/user'): Promise<number> {
  let files = 0;
  for (const entry of await readdir(hostDir, { withFileTypes: true })) {
    const from = join(hostDir, entry.name);
    const to = `${sandboxDir}/${entry.name}`;
    if (entry.isDirectory()) {
      await sandbox.mkdir(to, { recursive: true });
      files += await copyDirInto(sandbox, from, to);
    } else if (entry.isFile()) {
      const info = await lstat(from);
      await sandbox.writeFile(to, await readFile(from), { mode: info.mode & 0o777 });
      files += 1;
    } else if (entry.isSymbolicLink()) {
      const target = await readlink(from);
      await sandbox.run(['ln', '-s', target, to]).catch(() => undefined);
    }
  }
  return files;
}
