// Compatibility cases are data: YAML files under tests/compat/<suite>/<topic>.yaml, each a
// list of cases run with ours and compared byte for byte (stdout and exit status, stderr
// when asked) with the real tool's result, recorded beside them in <topic>.recorded.yaml
// (recording.ts).

import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export interface CompatCase {
  name: string;
  /** A bash script, run with `bash -c` in a fresh directory holding `files`. */
  script: string;
  files?: Record<string, string>;
  stdin?: string;
  /** A real difference we accept; listed in docs/ with this reason. */
  known_failure?: string;
  /** Not run at all (needs something the machine lacks), with the reason. */
  skip?: string;
  /** Compare stderr too (off by default: messages name paths and programs differently). */
  compare_stderr?: boolean;
  /** Per-case timeout in ms (default 10 s). */
  timeout?: number;
}

export interface LoadedCase extends CompatCase {
  suite: string;
  file: string;
  id: string;
}

export const COMPAT_ROOT = new URL('.', import.meta.url).pathname;

export function suites(): string[] {
  return readdirSync(COMPAT_ROOT, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function loadSuite(suite: string): LoadedCase[] {
  const dir = join(COMPAT_ROOT, suite);
  if (!existsSync(dir)) return [];
  const out: LoadedCase[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml') && !f.endsWith('.recorded.yaml')).sort()) {
    const cases = parse(readFileSync(join(dir, file), 'utf8')) as CompatCase[] | null;
    if (!Array.isArray(cases)) throw new Error(`${suite}/${file}: expected a list of cases`);
    const seen = new Set<string>();
    for (const c of cases) {
      if (typeof c.name !== 'string' || typeof c.script !== 'string') throw new Error(`${suite}/${file}: every case needs name and script`);
      if (seen.has(c.name)) throw new Error(`${suite}/${file}: duplicate case name "${c.name}"`);
      seen.add(c.name);
      out.push({ ...c, suite, file, id: `${suite}/${file.replace(/\.yaml$/, '')}: ${c.name}` });
    }
  }
  return out;
}
