// The native target: real /bin/bash, but with our coreutils (built for this machine) first
// on PATH. It lets command authors compare against GNU quickly, before anything runs in
// the sandbox; the acceptance suite itself runs in the sandbox (sandbox-target.ts).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { CompatCase } from './cases.js';
import { runWithBash, type Outcome } from './reference.js';

const repoRoot = new URL('../../', import.meta.url).pathname;

function commandNames(): string[] {
  const dir = join(repoRoot, 'crates/coreutils/src/cmd');
  const names: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.rs'))) {
    const header = readFileSync(join(dir, file), 'utf8').split('\n').find((l) => l.startsWith('//! command:'));
    if (header) names.push(...header.slice('//! command:'.length).trim().split(/\s+/));
    else names.push(file.slice(0, -3).replace(/_+$/, '').replace(/_/g, '-'));
  }
  return names;
}

let binDir: string | undefined;

/** Builds the native multicall binary once and links every command name to it. */
export function nativeBinDir(): string {
  if (binDir !== undefined) return binDir;
  const targetDir = process.env.COMPAT_CARGO_TARGET_DIR ?? '/tmp/airlock-compat-target';
  execFileSync('/usr/bin/cargo', ['build', '--release', '-p', 'coreutils'], {
    cwd: join(repoRoot, 'crates'),
    env: { ...process.env, RUSTC: '/usr/bin/rustc', CARGO_TARGET_DIR: targetDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const binary = join(targetDir, 'release', 'coreutils');
  const dir = join(targetDir, 'compat-bin');
  if (existsSync(dir)) rmSync(dir, { recursive: true });
  mkdirSync(dir, { recursive: true });
  for (const name of commandNames()) symlinkSync(binary, join(dir, name));
  binDir = dir;
  return dir;
}

export async function runNative(c: CompatCase): Promise<Outcome> {
  return runWithBash(c, `${nativeBinDir()}:`);
}
