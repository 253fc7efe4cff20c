// Installed packages: each command a file in /usr/local/bin (the module's bytes, shared by
// the package's commands), and what was installed in /usr/local/lib/pkg/NAME.json. Both
// are system entries: the sandbox's processes see them read-only (EROFS), only `pkg`
// writes there, through this store. They are inodes like any other, so they are part of
// the workspace the host saves and restores.

import { ROOT_INO, type Vfs } from '../vfs/vfs.js';
import type { DirInode, FileInode } from '../vfs/inode.js';
import { nowNs } from '../vfs/inode.js';
import type { VfsCaller } from '../vfs/caller.js';
import { PACKAGE_BIN } from '../sys/spawn.js';
import type { PackageEntry } from './registry.js';

const PACKAGE_DB = '/usr/local/lib/pkg';
const ROOT: VfsCaller = { pid: 0, umask: 0o022, uid: 0, gid: 0 };

/** What was installed: the index entry it came from. */
export type InstalledPackage = PackageEntry;

export class PackageStore {
  constructor(private readonly vfs: () => Vfs) {}

  private directory(path: string, create: boolean): DirInode | undefined {
    const vfs = this.vfs();
    let dir = vfs.resolve(ROOT_INO, '/', true, ROOT) as DirInode;
    for (const name of path.split('/').filter((part) => part !== '')) {
      const ino = dir.entries.get(name);
      let next = ino === undefined ? undefined : vfs.get(ino);
      if (next === undefined) {
        if (!create) return undefined;
        const now = nowNs();
        next = vfs.addSystemEntry(dir, name, { kind: 'dir', mode: 0o755, uid: 0, gid: 0, atimeNs: now, mtimeNs: now, ctimeNs: now, writable: false, entries: new Map(), parent: dir.ino });
      }
      if (next.kind !== 'dir') return undefined;
      dir = next;
    }
    return dir;
  }

  list(): InstalledPackage[] {
    const db = this.directory(PACKAGE_DB, false);
    if (db === undefined) return [];
    const out: InstalledPackage[] = [];
    for (const [name, ino] of [...db.entries].sort(([a], [b]) => a.localeCompare(b))) {
      const inode = this.vfs().get(ino);
      if (!name.endsWith('.json') || inode?.kind !== 'file') continue;
      try {
        out.push(JSON.parse(new TextDecoder().decode(inode.data.subarray(0, inode.size))) as InstalledPackage);
      } catch {
        // A record that does not parse is not an installed package.
      }
    }
    return out;
  }

  get(name: string): InstalledPackage | undefined {
    return this.list().find((p) => p.name === name);
  }

  /** The installed package that provides `command`, if any. */
  owner(command: string): InstalledPackage | undefined {
    return this.list().find((p) => p.commands.includes(command));
  }

  /** Writes `entry`'s commands (all `bytes`) and its record; replaces an earlier version. */
  install(entry: PackageEntry, bytes: Uint8Array): void {
    this.remove(entry.name);
    const bin = this.directory(PACKAGE_BIN, true) as DirInode;
    for (const command of entry.commands) this.writeFile(bin, command, bytes, 0o755);
    const db = this.directory(PACKAGE_DB, true) as DirInode;
    this.writeFile(db, `${entry.name}.json`, new TextEncoder().encode(JSON.stringify(entry) + '\n'), 0o644);
  }

  remove(name: string): InstalledPackage | undefined {
    const installed = this.get(name);
    if (installed === undefined) return undefined;
    const bin = this.directory(PACKAGE_BIN, false);
    if (bin !== undefined) for (const command of installed.commands) this.vfs().removeSystemEntry(bin, command);
    const db = this.directory(PACKAGE_DB, false);
    if (db !== undefined) this.vfs().removeSystemEntry(db, `${name}.json`);
    return installed;
  }

  private writeFile(dir: DirInode, name: string, bytes: Uint8Array, mode: number): FileInode {
    this.vfs().removeSystemEntry(dir, name);
    const now = nowNs();
    return this.vfs().addSystemEntry(dir, name, { kind: 'file', mode, uid: 0, gid: 0, atimeNs: now, mtimeNs: now, ctimeNs: now, writable: false, data: bytes, size: bytes.length }) as FileInode;
  }
}
