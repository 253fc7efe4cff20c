// Checks an archive's entries before an import replaces anything: paths stay inside the
// workspace (relative, no '..', no NUL, no duplicates), modes are plain permission bits,
// symlinks do not point outside it, and the total fits the sandbox's limits.

import { formatBytes, plural } from '../format.js';
import type { TarEntry } from './tar.js';

export interface ImportLimits {
  fsBytes: number;
  fileCount: number;
}

export type ImportCheck = { ok: true; entries: TarEntry[]; bytes: number } | { ok: false; errors: string[] };

/** Most errors reported at once, so a bad archive does not flood the banner. */
const MAX_ERRORS = 10;

/** The normalized relative path, or an error message. */
export function normalizeImportPath(raw: string): { path: string } | { error: string } {
  if (raw.includes('\0')) return { error: `${JSON.stringify(raw)}: contains a NUL byte` };
  if (raw.startsWith('/')) return { error: `${raw}: absolute paths are not accepted (paths are relative to /home/user)` };
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return { error: `${raw}: '..' would leave the workspace` };
  if (parts.length === 0) return { error: `${JSON.stringify(raw)}: empty path` };
  if (parts.some((p) => new TextEncoder().encode(p).length > 255)) return { error: `${raw}: a name is longer than 255 bytes` };
  return { path: parts.join('/') };
}

/** Whether a symlink at `path` pointing to `target` stays inside the workspace. */
function targetStaysInside(path: string, target: string): boolean {
  if (target.startsWith('/')) return target === '/home/user' || target.startsWith('/home/user/');
  const parts = path.split('/').slice(0, -1);
  for (const part of target.split('/')) {
    if (part === '..') {
      if (parts.length === 0) return false;
      parts.pop();
    } else if (part !== '' && part !== '.') parts.push(part);
  }
  return true;
}

export function validateImport(entries: readonly TarEntry[], limits: ImportLimits): ImportCheck {
  const errors: string[] = [];
  const seen = new Set<string>();
  const accepted: TarEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (errors.length >= MAX_ERRORS) break;
    const normalized = normalizeImportPath(entry.path);
    if ('error' in normalized) {
      errors.push(normalized.error);
      continue;
    }
    const path = normalized.path;
    if (seen.has(path)) {
      errors.push(`${path}: appears twice in the archive`);
      continue;
    }
    seen.add(path);
    if (!Number.isInteger(entry.mode) || entry.mode < 0 || entry.mode > 0o7777) {
      errors.push(`${path}: mode ${String(entry.mode)} is not a permission mode`);
      continue;
    }
    if (entry.kind === 'symlink' && !targetStaysInside(path, entry.target ?? '')) {
      errors.push(`${path}: symlink to ${entry.target ?? ''} points outside the workspace`);
      continue;
    }
    bytes += entry.data?.length ?? 0;
    // setuid/setgid/sticky mean nothing in the sandbox; only permission bits are kept.
    accepted.push({ ...entry, path, mode: entry.mode & 0o777 });
  }
  if (bytes > limits.fsBytes) errors.push(`its files take ${formatBytes(bytes)}, more than the disk limit of ${formatBytes(limits.fsBytes)} (raise it in Settings)`);
  if (accepted.length > limits.fileCount) errors.push(`it holds ${plural(accepted.length, 'entry', 'entries')}, more than the file-count limit of ${limits.fileCount.toLocaleString('en')} (raise it in Settings)`);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, entries: accepted, bytes };
}
