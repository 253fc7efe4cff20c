// What stat and readdir report. The core's stat is the descriptions' StatInfo as it is
// (programs stat a descriptor before every `read` line: no copies on that path); the kind
// spelled out is for callers that want it (Python's wire stat, directory entries).

import { FILETYPE, type StatInfo } from '../fd/description.js';

export type FileKind = 'file' | 'dir' | 'symlink' | 'chardev' | 'fifo' | 'unknown';

export interface DirectoryEntry {
  name: string;
  ino: number;
  kind: FileKind;
  filetype: number;
}

/** The kind of a WASI filetype. */
export const KIND_BY_FILETYPE: Record<number, FileKind> = {
  [FILETYPE.REGULAR_FILE]: 'file',
  [FILETYPE.DIRECTORY]: 'dir',
  [FILETYPE.SYMBOLIC_LINK]: 'symlink',
  [FILETYPE.CHARACTER_DEVICE]: 'chardev',
};

/** The kind of file a stat describes. */
export function kindOf(stat: StatInfo): FileKind {
  if ((stat.mode & 0o170000) === 0o010000) return 'fifo';
  return KIND_BY_FILETYPE[stat.filetype] ?? 'unknown';
}

