// The policy signal: rules over the workspace and, when a base is given, its diff (the files
// added or changed against the base). forbiddenPaths: no file (changed file, with a base)
// may match one of the globs; requireLockfile: a package.json with dependencies needs its
// package-lock.json, and a change to one needs a change to the other; maxFileBytes.

import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PolicyRules } from '../catalog.js';
import type { GateSignal } from './signal.js';

const SKIP_DIRS = new Set(['.git', 'node_modules']);

function listFiles(root: string): Map<string, number> {
  const files = new Map<string, number>();
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      const stat = lstatSync(path);
      if (stat.isDirectory()) {
        if (!SKIP_DIRS.has(name)) walk(path, rel);
      } else files.set(rel, stat.size);
    }
  };
  if (existsSync(root)) walk(root, '');
  return files;
}

/** A glob (`*` within a name, `**` across directories) as a RegExp over relative paths. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      out += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

function changed(workspace: string, base: string | null, files: Map<string, number>): Set<string> {
  if (base === null) return new Set(files.keys());
  const out = new Set<string>();
  for (const rel of files.keys()) {
    const before = join(base, rel);
    if (!existsSync(before) || !readFileSync(before).equals(readFileSync(join(workspace, rel)))) out.add(rel);
  }
  return out;
}

export function collectPolicySignal(workspace: string, rules: PolicyRules, base: string | null = null): GateSignal {
  const files = listFiles(workspace);
  const touched = changed(workspace, base, files);
  const hits: string[] = [];
  for (const glob of rules.forbiddenPaths ?? []) {
    const pattern = globToRegExp(glob);
    for (const rel of touched) if (pattern.test(rel)) hits.push(`forbidden path ${rel} (${glob})`);
  }
  if (rules.requireLockfile === true && files.has('package.json')) {
    const pkg = JSON.parse(readFileSync(join(workspace, 'package.json'), 'utf8')) as Record<string, unknown>;
    const hasDeps = ['dependencies', 'devDependencies', 'optionalDependencies'].some((key) => Object.keys((pkg[key] as object | undefined) ?? {}).length > 0);
    if (hasDeps && !files.has('package-lock.json')) hits.push('package.json has dependencies but no package-lock.json');
    else if (base !== null && touched.has('package.json') && files.has('package-lock.json') && !touched.has('package-lock.json')) {
      const before = existsSync(join(base, 'package.json')) ? (JSON.parse(readFileSync(join(base, 'package.json'), 'utf8')) as Record<string, unknown>) : {};
      const deps = (value: Record<string, unknown>): string => JSON.stringify(['dependencies', 'devDependencies', 'optionalDependencies'].map((key) => value[key] ?? {}));
      if (deps(before) !== deps(pkg)) hits.push('package.json dependencies changed but package-lock.json did not');
    }
  }
  if (rules.maxFileBytes !== undefined) {
    for (const rel of touched) if ((files.get(rel) ?? 0) > rules.maxFileBytes) hits.push(`${rel} is larger than ${rules.maxFileBytes} bytes`);
  }
  const passed = hits.length === 0;
  return {
    kind: 'policy', passed, retryable: rules.retryAllowed === true,
    summary: passed ? `${touched.size} files checked` : hits.slice(0, 3).join('; ') + (hits.length > 3 ? `; and ${hits.length - 3} more` : ''),
    details: { checked: touched.size, violations: hits.length, diff: base !== null },
    evidence: hits.slice(0, 20),
  };
}
