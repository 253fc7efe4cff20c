// Copies a directory of this machine into the sandbox, and a sandbox directory back out:
// files with their modes, directories and symlinks (kept as symlinks, never followed),
// nothing that is not one of those. Out of the sandbox, names come from untrusted code: only plain names are
// written (no '/', '.', '..'), symlinks are recreated as links and never followed.

import { constants, existsSync } from 'node:fs';
import { mkdir, open, readdir, readlink, rm, symlink, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sandbox } from './index.js';

/** Opens an entry as it is now: never through a symlink, never waiting on a FIFO. */
const NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Copies `hostDir` into the sandbox. Each directory is read through its open descriptor
 * (Linux's /proc/self/fd/N) and each entry opened with O_NOFOLLOW, so a path the host
 * swaps for a symlink while the copy runs is copied as that symlink, never followed out of
 * the directory. Symlinks are created by the host API, whatever the tool allowlist says.
 */
export async function copyDirInto(sandbox: Sandbox, hostDir: string, sandboxDir = '/home/user'): Promise<number> {
  const dir = await open(hostDir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    return await copyOpenDir(sandbox, dir, hostDir, sandboxDir);
  } finally {
    await dir.close();
  }
}

async function copyOpenDir(sandbox: Sandbox, dir: FileHandle, hostPath: string, sandboxDir: string): Promise<number> {
  // Names under the descriptor's own path resolve in the directory that was opened, even
  // if its path has been swapped since (where /proc is missing, the path is all there is).
  const base = existsSync(`/proc/self/fd/${dir.fd}`) ? `/proc/self/fd/${dir.fd}` : hostPath;
  let files = 0;
  for (const entry of await readdir(base, { withFileTypes: true })) {
    const from = join(base, entry.name);
    const to = `${sandboxDir}/${entry.name}`;
    if (!entry.isFile() && !entry.isDirectory() && !entry.isSymbolicLink()) continue;
    let handle: FileHandle | undefined;
    try {
      handle = entry.isSymbolicLink() ? undefined : await open(from, NO_FOLLOW);
    } catch (error) {
      // ELOOP: it became a symlink after it was listed; it is copied as one below.
      if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
    }
    if (handle === undefined) {
      await sandbox.symlink(await readlink(from), to);
      continue;
    }
    try {
      const info = await handle.stat();
      if (info.isDirectory()) {
        await sandbox.mkdir(to, { recursive: true });
        files += await copyOpenDir(sandbox, handle, join(hostPath, entry.name), to);
      } else if (info.isFile()) {
        await sandbox.writeFile(to, await handle.readFile(), { mode: info.mode & 0o777 });
        files += 1;
      }
    } finally {
      await handle.close();
    }
  }
  return files;
}

/**
 * Copies `sandboxDir` (recursively) into `hostDir`, which is emptied first: afterwards the
 * host directory holds exactly what the sandbox's does. Returns the number of files.
 */
export async function copyDirOut(sandbox: Sandbox, sandboxDir: string, hostDir: string): Promise<number> {
  await rm(hostDir, { recursive: true, force: true });
  await mkdir(hostDir, { recursive: true });
  let files = 0;
  for (const entry of await sandbox.readDir(sandboxDir)) {
    if (entry.name === '' || entry.name === '.' || entry.name === '..' || entry.name.includes('/') || entry.name.includes('\0')) continue;
    const from = `${sandboxDir}/${entry.name}`;
    const to = join(hostDir, entry.name);
    if (entry.kind === 'dir') files += await copyDirOut(sandbox, from, to);
    else if (entry.kind === 'file') {
      const info = await sandbox.stat(from, { follow: false });
      await writeFile(to, await sandbox.readFile(from), { mode: info.mode & 0o777 });
      files += 1;
    } else if (entry.kind === 'symlink') {
      const info = await sandbox.stat(from, { follow: false });
      if (info.target !== undefined) await symlink(info.target, to);
    }
  }
  return files;
}
