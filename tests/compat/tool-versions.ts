// The versions of the reference tools: read from dpkg on this machine, and as recorded per
// suite in tests/compat/recorded-with.yaml (the one place that says what the recordings
// were made with).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { REFERENCE_PACKAGES } from '../../scripts/setup.mjs';
import { COMPAT_ROOT } from './cases.js';

export const VERSIONS_FILE = join(COMPAT_ROOT, 'recorded-with.yaml');

/** Package name → installed version (or "not installed"). */
export type ToolVersions = Record<string, string>;

export function installedVersions(): ToolVersions {
  const out: ToolVersions = {};
  const result = spawnSync('dpkg-query', ['-W', '-f=${Package}\t${Version}\t${Status}\n', ...REFERENCE_PACKAGES], { encoding: 'utf8' });
  for (const pkg of [...REFERENCE_PACKAGES].sort()) out[pkg] = 'not installed';
  for (const line of (result.stdout ?? '').split('\n')) {
    const [pkg, version, status] = line.split('\t');
    if (pkg !== undefined && version !== undefined && status?.includes('install ok installed')) out[pkg.replace(/:.*$/, '')] = version;
  }
  return out;
}

export function recordedVersions(): Record<string, ToolVersions> {
  if (!existsSync(VERSIONS_FILE)) return {};
  return (parse(readFileSync(VERSIONS_FILE, 'utf8')) ?? {}) as Record<string, ToolVersions>;
}

export function writeRecordedVersions(suite: string, versions: ToolVersions): void {
  const all = { ...recordedVersions(), [suite]: versions };
  const sorted = Object.fromEntries(Object.keys(all).sort().map((s) => [s, all[s]]));
  const header = [
    '# The Debian packages (dpkg versions) each suite\'s recordings were made with, written by',
    '# `npm run compat:record`. See docs/compat.md, "Recorded oracles".',
  ].join('\n');
  writeFileSync(VERSIONS_FILE, `${header}\n${stringify(sorted)}`);
}

/** Lines "pkg: recorded → installed" for the packages whose versions differ. */
export function versionChanges(recorded: ToolVersions | undefined, installed: ToolVersions): string[] {
  if (recorded === undefined) return ['(no versions recorded yet)'];
  const names = [...new Set([...Object.keys(recorded), ...Object.keys(installed)])].sort();
  return names.filter((n) => recorded[n] !== installed[n]).map((n) => `${n}: ${recorded[n] ?? 'not recorded'} → ${installed[n] ?? 'not a reference package any more'}`);
}
