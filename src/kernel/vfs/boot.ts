// The tree every sandbox starts with. It is built the same way on every boot, so inode
// numbers of system entries are stable and the host's records of changed inodes can be
// replayed on top of a fresh boot after a hard kill.
//
//   /bin -> usr/bin   /usr/bin/<tool>   /etc/{passwd,group,hostname,hosts,os-release}
//   /dev/{null,zero,random,urandom,tty,stdin,stdout,stderr,fd}   /proc (virtual)
//   /home/user and /tmp: the only writable trees.

import { SANDBOX_HOME } from '../../protocol/messages.js';
import type { DirInode, FileInode } from './inode.js';
import { nowNs } from './inode.js';
import { Procfs, type ProcessSource } from './procfs.js';
import { ROOT_INO, type Vfs } from './vfs.js';

export const USER_UID = 1000;
export const USER_NAME = 'user';
/** The user's home, as the host API names it. */
export const HOME = SANDBOX_HOME;
/** Where `pip install` unpacks wheels; python3 puts it on sys.path after the standard library. */
export const PYTHON_USER_SITE = `${SANDBOX_HOME}/.local/lib/python3/site-packages`;

/** Content of a /usr/bin entry: a magic line and the tool's name (like ELF's \x7fELF). */
export const TOOL_MAGIC = '\x7fAIRLOCK\n';

const encoder = new TextEncoder();

export interface BootOptions {
  tools: string[];
  hostname: string;
  kernelVersion: string;
}

export interface BootResult {
  homeIno: number;
  tmpIno: number;
  procfs: Procfs;
  /** The highest inode number created by boot: records above it are the sandbox's own. */
  lastSystemIno: number;
}

export function toolFileContent(name: string): Uint8Array {
  return encoder.encode(`${TOOL_MAGIC}${name}\n`);
}

/** The tool a file runs, when its content is a tool entry. */
export function toolNameOf(content: Uint8Array): string | undefined {
  if (content.length < TOOL_MAGIC.length + 2 || content[0] !== 0x7f || content[1] !== 0x41) return undefined;
  const text = new TextDecoder().decode(content.subarray(0, 256));
  if (!text.startsWith(TOOL_MAGIC)) return undefined;
  return text.slice(TOOL_MAGIC.length).split('\n')[0];
}

export function bootFilesystem(vfs: Vfs, options: BootOptions, processes: ProcessSource): BootResult {
  const now = nowNs();
  const base = { uid: 0, gid: 0, atimeNs: now, mtimeNs: now, ctimeNs: now, writable: false };
  const root = vfs.getOrThrow(ROOT_INO) as DirInode;
  const dir = (parent: DirInode, name: string, mode = 0o755, writable = false, uid = 0): DirInode =>
    vfs.addSystemEntry(parent, name, { ...base, kind: 'dir', mode, writable, uid, gid: uid, entries: new Map(), parent: parent.ino }) as DirInode;
  const file = (parent: DirInode, name: string, content: string | Uint8Array, mode = 0o644): FileInode => {
    const data = typeof content === 'string' ? encoder.encode(content) : content;
    return vfs.addSystemEntry(parent, name, { ...base, kind: 'file', mode, data, size: data.length }) as FileInode;
  };
  const link = (parent: DirInode, name: string, target: string) =>
    vfs.addSystemEntry(parent, name, { ...base, kind: 'symlink', mode: 0o777, target });

  link(root, 'bin', 'usr/bin');
  const dev = dir(root, 'dev');
  vfs.addDevice(dev, 'null', 'null', 0o666);
  vfs.addDevice(dev, 'zero', 'zero', 0o666);
  vfs.addDevice(dev, 'random', 'random', 0o666);
  vfs.addDevice(dev, 'urandom', 'urandom', 0o666);
  vfs.addDevice(dev, 'tty', 'tty', 0o666);
  link(dev, 'stdin', '/proc/self/fd/0');
  link(dev, 'stdout', '/proc/self/fd/1');
  link(dev, 'stderr', '/proc/self/fd/2');
  link(dev, 'fd', '/proc/self/fd');

  const etc = dir(root, 'etc');
  file(etc, 'passwd', `root:x:0:0:root:/root:/bin/bash\n${USER_NAME}:x:${USER_UID}:${USER_UID}:Airlock user:${HOME}:/bin/bash\n`);
  file(etc, 'group', `root:x:0:\n${USER_NAME}:x:${USER_UID}:\n`);
  file(etc, 'hostname', `${options.hostname}\n`);
  file(etc, 'hosts', `127.0.0.1\tlocalhost\n127.0.1.1\t${options.hostname}\n`);
  file(etc, 'os-release', 'PRETTY_NAME="Airlock sandbox"\nNAME="Airlock"\nID=airlock\n');
  file(etc, 'shells', '/bin/sh\n/bin/bash\n/usr/bin/sh\n/usr/bin/bash\n');

  const home = dir(root, 'home');
  const user = dir(home, USER_NAME, 0o755, true, USER_UID);
  const proc = dir(root, 'proc', 0o555);
  const tmp = dir(root, 'tmp', 0o1777, true);
  const usr = dir(root, 'usr');
  const usrBin = dir(usr, 'bin');
  dir(usr, 'lib');
  const local = dir(usr, 'local');
  dir(local, 'bin');
  const sortedTools = [...new Set(options.tools)].sort();
  for (const tool of sortedTools) file(usrBin, tool, toolFileContent(tool), 0o755);

  const procfs = new Procfs(proc.ino, processes, options.kernelVersion);
  vfs.mountVirtual(proc.ino, procfs);
  const lastSystemIno = vfs.table.nextIno - 1;
  // Boot is not a change the host needs to hear about: it replays boot itself.
  vfs.takeChanged();
  return { homeIno: user.ino, tmpIno: tmp.ino, procfs, lastSystemIno };
}
