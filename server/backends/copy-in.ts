// Copy-in: walk a host tree (written by the code under test, so treated with care) without
// following symlinks: regular files, directories and symlinks (kept as links) are taken;
// devices, FIFOs and sockets are refused; bytes and entries are capped (GATE_LIMITS).

import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { GATE_LIMITS } from '../../src/protocol/limits.js';
import { SandboxSpecError } from './errors.js';

export interface CopyInEntry {
  /** '/'-separated, relative to the copy-in root; '' is the root itself. */
  relPath: string;
  hostPath: string;
  kind: 'file' | 'dir' | 'symlink';
  size: number;
  mode: number;
  target?: string;
}

export interface CopyInBudget {
  bytes: number;
  entries: number;
}

export function newCopyInBudget(): CopyInBudget {
  return { bytes: 0, entries: 0 };
}

/** Every entry under `hostPath` (depth first, parents before children). */
export function* walkCopyIn(hostPath: string, budget: CopyInBudget = newCopyInBudget()): Generator<CopyInEntry> {
  const stack: string[] = [''];
  while (stack.length > 0) {
    const relPath = stack.pop() as string;
    const path = relPath === '' ? hostPath : join(hostPath, relPath);
    const stat = lstatSync(path);
    budget.entries += 1;
    if (budget.entries > GATE_LIMITS.copyInEntries) throw new SandboxSpecError(`copyIn ${hostPath}: more than ${GATE_LIMITS.copyInEntries} entries (GATE_LIMITS.copyInEntries)`);
    const mode = stat.mode & 0o7777;
    if (stat.isSymbolicLink()) {
      yield { relPath, hostPath: path, kind: 'symlink', size: 0, mode, target: readlinkSync(path) };
    } else if (stat.isFile()) {
      budget.bytes += stat.size;
      if (budget.bytes > GATE_LIMITS.copyInBytes) throw new SandboxSpecError(`copyIn ${hostPath}: more than ${GATE_LIMITS.copyInBytes} bytes (GATE_LIMITS.copyInBytes)`);
      yield { relPath, hostPath: path, kind: 'file', size: stat.size, mode };
    } else if (stat.isDirectory()) {
      yield { relPath, hostPath: path, kind: 'dir', size: 0, mode };
      const names = readdirSync(path).sort().reverse();
      for (const name of names) stack.push(relPath === '' ? name : `${relPath}/${name}`);
    } else {
      throw new SandboxSpecError(`copyIn ${path}: not a regular file, directory or symlink`);
    }
  }
}
