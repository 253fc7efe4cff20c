// A package registry's index (docs/packages.md): one JSON document listing, for each
// package version, its name, version, description, the URL of its wasm module, that
// module's sha256 and size, and the commands it provides. The index comes from the
// network, so every field is checked before it is used, and names are checked before
// they become file names in /usr/local/bin.

export interface PackageEntry {
  name: string;
  version: string;
  description: string;
  url: string;
  sha256: string;
  size: number;
  commands: string[];
}

/** Why `name` cannot be a package or command name, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (name === '') return 'the name is empty';
  if (name === '.' || name === '..') return `'${name}' is not a name`;
  if (name.includes('/')) return `'${name}' contains '/'`;
  if (name.includes('\0')) return 'the name contains a NUL byte';
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/.test(name)) return `'${name}' is not a valid name (letters, digits and . _ + -, starting with a letter or digit, 64 at most)`;
  return undefined;
}

/** `NAME` or `NAME@VERSION`. */
export function parseSpec(spec: string): { name: string; version: string | undefined } {
  const at = spec.indexOf('@');
  return at < 0 ? { name: spec, version: undefined } : { name: spec.slice(0, at), version: spec.slice(at + 1) };
}

/**
 * Why `value` is not a valid index entry, or the entry. A relative `url` is resolved
 * against the index's own URL (`base`), so a registry folder can be served from any host.
 */
function entryOf(value: unknown, base: string | undefined): PackageEntry | string {
  if (typeof value !== 'object' || value === null) return 'an entry is not an object';
  const entry = value as Record<string, unknown>;
  const name = typeof entry.name === 'string' ? entry.name : '';
  const problem = nameProblem(name);
  if (problem !== undefined) return `an entry's name: ${problem}`;
  const { version, description, url, sha256, size, commands } = entry;
  if (typeof version !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9.+~-]{0,63}$/.test(version)) return `${name}: its version is not a version string`;
  if (typeof description !== 'string') return `${name}: its description is not a string`;
  const resolved = typeof url === 'string' ? resolveUrl(url, base) : undefined;
  if (resolved === undefined) return `${name}: its url is not an http(s) URL${base === undefined ? '' : ' (or one relative to the index)'}`;
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) return `${name}: its sha256 is not 64 lowercase hex digits`;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return `${name}: its size is not a byte count`;
  if (!Array.isArray(commands) || commands.length === 0 || commands.some((c) => typeof c !== 'string')) return `${name}: its commands are not a list of names`;
  for (const command of commands as string[]) {
    const commandProblem = nameProblem(command);
    if (commandProblem !== undefined) return `${name}: a command's name: ${commandProblem}`;
  }
  return { name, version, description, url: resolved, sha256, size, commands: [...new Set(commands as string[])] };
}

/** `url`, absolute or relative to `base`, as an absolute http(s) URL; undefined when it is not one. */
function resolveUrl(url: string, base: string | undefined): string | undefined {
  if (base === undefined && !/^https?:\/\//.test(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url, base);
  } catch {
    return undefined;
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
}

/** A parsed index: its valid entries, and what was wrong with the others. */
export interface RegistryIndex {
  entries: PackageEntry[];
  problems: string[];
}

/** The index `text`; `base` is the URL it was read from (relative package URLs resolve against it). */
export function parseIndex(text: string, base?: string): RegistryIndex {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`the registry index is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const list = (document as { packages?: unknown } | null)?.packages;
  if (!Array.isArray(list)) throw new Error('the registry index has no "packages" list');
  const entries: PackageEntry[] = [];
  const problems: string[] = [];
  for (const value of list) {
    const entry = entryOf(value, base);
    if (typeof entry === 'string') problems.push(entry);
    else entries.push(entry);
  }
  return { entries, problems };
}

/** Compares dotted versions numerically where both parts are numbers (1.10 > 1.9). */
export function compareVersions(a: string, b: string): number {
  const left = a.split(/[.+~-]/);
  const right = b.split(/[.+~-]/);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? '';
    const y = right[i] ?? '';
    const difference = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The entry for `name` at `version` (the newest when undefined). */
export function findEntry(index: RegistryIndex, name: string, version: string | undefined): PackageEntry | undefined {
  const candidates = index.entries.filter((e) => e.name === name && (version === undefined || e.version === version));
  return candidates.sort((a, b) => compareVersions(b.version, a.version))[0];
}

/** Whether `url`'s host is one of `allowedHosts` (host, or host:port for that port only). */
export function hostAllowed(url: URL, allowedHosts: readonly string[]): boolean {
  return allowedHosts.some((entry) => entry === url.host || (url.port === '' && entry === url.hostname));
}
