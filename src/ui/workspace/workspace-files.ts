// Moving a workspace between the sandbox and a .tar.gz: export walks /home/user through the
// host API; import writes validated entries back. Also the browser download helper.

import type { Sandbox } from '../../host/browser/index.js';
import { gzip, writeTar, type TarEntry } from './tar.js';

export const WORKSPACE_ROOT = '/home/user';

/** Every file, directory and symlink under /home/user, depth first, parents before children. */
export async function collectEntries(sandbox: Sandbox, dir = WORKSPACE_ROOT, prefix = ''): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  for (const item of await sandbox.readDir(dir)) {
    const full = `${dir}/${item.name}`;
    const path = prefix + item.name;
    const info = await sandbox.stat(full, { follow: false });
    const base = { path, mode: info.mode & 0o7777, mtimeMs: info.mtimeMs };
    if (info.kind === 'dir') {
      entries.push({ ...base, kind: 'dir' });
      entries.push(...(await collectEntries(sandbox, full, `${path}/`)));
    } else if (info.kind === 'symlink') {
      entries.push({ ...base, kind: 'symlink', target: info.target ?? '' });
    } else if (info.kind === 'file') {
      entries.push({ ...base, kind: 'file', data: await sandbox.readFile(full) });
    }
  }
  return entries;
}

export async function exportWorkspace(sandbox: Sandbox): Promise<Uint8Array> {
  return gzip(writeTar(await collectEntries(sandbox)));
}

/** Writes validated entries into a (fresh) sandbox under /home/user, then their times. */
export async function writeEntries(sandbox: Sandbox, entries: readonly TarEntry[], root = WORKSPACE_ROOT): Promise<void> {
  for (const entry of entries) {
    const full = `${root}/${entry.path}`;
    if (entry.kind === 'dir') await sandbox.mkdir(full, { recursive: true, mode: entry.mode });
    else if (entry.kind === 'file') await sandbox.writeFile(full, entry.data ?? new Uint8Array(0), { mode: entry.mode, parents: true });
    else await sandbox.run(['ln', '-sfn', entry.target ?? '', full]);
  }
  for (const command of touchCommands(entries, root)) await sandbox.run(command);
}

/** Shell-quotes one word. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Commands that set the entries' modification times (the host API has no call for it):
 * `touch -h -c -m -d @SECONDS` per distinct time, files before directories (creating a
 * child changes its directory's time), deepest directories first, each command under
 * `maxBytes` so it stays within the commandBytes limit.
 */
export function touchCommands(entries: readonly TarEntry[], root = WORKSPACE_ROOT, maxBytes = 32 * 1024): string[] {
  const ordered = [...entries.filter((e) => e.kind !== 'dir').sort((a, b) => a.mtimeMs - b.mtimeMs), ...entries.filter((e) => e.kind === 'dir').sort((a, b) => b.path.split('/').length - a.path.split('/').length)];
  const commands: string[] = [];
  let current = '';
  let currentTime: number | undefined;
  for (const entry of ordered) {
    const seconds = Math.floor(entry.mtimeMs / 1000);
    const word = ` ${shellQuote(`${root}/${entry.path}`)}`;
    if (currentTime !== seconds || current.length + word.length > maxBytes) {
      if (current) commands.push(current);
      current = `touch -h -c -m -d @${seconds} --`;
      currentTime = seconds;
    }
    current += word;
  }
  if (current) commands.push(current);
  return commands;
}

export function downloadBytes(name: string, data: Uint8Array, type = 'application/octet-stream'): void {
  const url = URL.createObjectURL(new Blob([data as BlobPart], { type }));
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = name;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** How many files and folders /home/user holds and their size (without reading contents). */
export async function summarizeWorkspace(sandbox: Sandbox, dir = WORKSPACE_ROOT): Promise<{ files: number; dirs: number; bytes: number }> {
  const total = { files: 0, dirs: 0, bytes: 0 };
  for (const item of await sandbox.readDir(dir)) {
    const full = `${dir}/${item.name}`;
    if (item.kind === 'dir') {
      const inner = await summarizeWorkspace(sandbox, full);
      total.dirs += 1 + inner.dirs;
      total.files += inner.files;
      total.bytes += inner.bytes;
    } else {
      total.files += 1;
      if (item.kind === 'file') total.bytes += (await sandbox.stat(full, { follow: false })).size;
    }
  }
  return total;
}
