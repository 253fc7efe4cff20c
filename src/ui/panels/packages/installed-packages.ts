// What is installed in the sandbox, read from its files: `pkg`'s records in
// /usr/local/lib/pkg (one NAME.json each, what `pkg list` prints) and pip's wheels in the
// user's site-packages (one NAME-VERSION.dist-info folder each). Reading the files runs no
// command, so the view works while the terminal runs one.

import type { DirEntry } from '../../../protocol/messages.js';

export const PACKAGE_RECORDS = '/usr/local/lib/pkg';
export const SITE_PACKAGES = '/home/user/.local/lib/python3/site-packages';

export interface InstalledPackage {
  name: string;
  version: string;
  /** `pkg`: a WASI program's commands; `pip`: a pure-Python wheel. */
  kind: 'pkg' | 'pip';
  /** pkg: the commands it installed; pip: none. */
  commands: string[];
  description: string;
}

/** The part of the sandbox this needs. */
export interface PackageFiles {
  readDir(path: string): Promise<DirEntry[]>;
  readFile(path: string): Promise<Uint8Array>;
}

/** A folder's entries, or none when it does not exist (nothing was ever installed there). */
async function entries(files: PackageFiles, path: string): Promise<DirEntry[]> {
  try {
    return await files.readDir(path);
  } catch {
    return [];
  }
}

async function pkgRecord(files: PackageFiles, name: string): Promise<InstalledPackage | undefined> {
  try {
    const record = JSON.parse(new TextDecoder().decode(await files.readFile(`${PACKAGE_RECORDS}/${name}`))) as Record<string, unknown>;
    if (typeof record.name !== 'string' || typeof record.version !== 'string') return undefined;
    const commands = Array.isArray(record.commands) ? record.commands.filter((c): c is string => typeof c === 'string') : [];
    return { name: record.name, version: record.version, kind: 'pkg', commands, description: typeof record.description === 'string' ? record.description : '' };
  } catch {
    // A record that does not parse is not an installed package (as pkg list has it).
    return undefined;
  }
}

/** A wheel's `Summary:` from its METADATA, or ''. */
async function wheelSummary(files: PackageFiles, folder: string): Promise<string> {
  try {
    const metadata = new TextDecoder().decode(await files.readFile(`${SITE_PACKAGES}/${folder}/METADATA`));
    return /^Summary: *(.*)$/m.exec(metadata)?.[1]?.trim() ?? '';
  } catch {
    return '';
  }
}

/** Everything installed, pkg's first, each group by name. */
export async function readInstalledPackages(files: PackageFiles): Promise<InstalledPackage[]> {
  const installed: InstalledPackage[] = [];
  for (const entry of (await entries(files, PACKAGE_RECORDS)).filter((e) => e.kind === 'file' && e.name.endsWith('.json')).sort((a, b) => a.name.localeCompare(b.name))) {
    const record = await pkgRecord(files, entry.name);
    if (record !== undefined) installed.push(record);
  }
  for (const entry of (await entries(files, SITE_PACKAGES)).filter((e) => e.kind === 'dir').sort((a, b) => a.name.localeCompare(b.name))) {
    // NAME-VERSION.dist-info (PEP 427: the name's own dashes are underscores there).
    const wheel = /^(.+)-([^-]+)\.dist-info$/.exec(entry.name);
    if (wheel === null) continue;
    installed.push({ name: wheel[1] ?? entry.name, version: wheel[2] ?? '', kind: 'pip', commands: [], description: await wheelSummary(files, entry.name) });
  }
  return installed;
}
