// The session shell through the host API: state across runs, fork, and the hard kill that
// must bring back exactly the shell state from before the killed run.

import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, drainWarmPool } from './index.js';

const publicWasm = fileURLToPath(new URL('../../../public/wasm', import.meta.url));
const testWasm = fileURLToPath(new URL('../../../tests/wasm', import.meta.url));
const shellBuilt = existsSync(join(publicWasm, 'shell.wasm'));

/** A wasm directory with the shell and the probe (whose `spin` makes no syscalls). */
let wasmDir: string;

beforeAll(() => {
  if (!shellBuilt) return;
  wasmDir = mkdtempSync(join(tmpdir(), 'airlock-session-'));
  type Manifest = { abi: number; modules: Array<{ name: string; file: string }> };
  const shell = (JSON.parse(readFileSync(join(publicWasm, 'manifest.json'), 'utf8')) as Manifest).modules.filter((m) => m.name === 'shell');
  const probe = (JSON.parse(readFileSync(join(testWasm, 'manifest.json'), 'utf8')) as Manifest).modules;
  for (const m of shell) copyFileSync(join(publicWasm, m.file), join(wasmDir, m.file));
  for (const m of probe) copyFileSync(join(testWasm, m.file), join(wasmDir, m.file));
  writeFileSync(join(wasmDir, 'manifest.json'), JSON.stringify({ abi: 1, modules: [...shell, ...probe] }));
});

afterAll(() => {
  if (wasmDir) rmSync(wasmDir, { recursive: true, force: true });
  drainWarmPool();
});

describe.skipIf(!shellBuilt)('the session shell', () => {
  it('keeps variables, functions, aliases, options and the cwd across runs', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    await sandbox.run('x=42; f() { echo "f says $1"; }; shopt -s expand_aliases; alias hi="echo hello"; set -o pipefail; cd /tmp');
    expect((await sandbox.run('echo "$x"; f there; hi; echo $-; pwd; [[ -o pipefail ]] && echo pipefail')).stdout).toBe('42\nf says there\nhello\nhBc\n/tmp\npipefail\n'.replace('hBc', (await sandbox.run('echo $-')).stdout.trim()));
    await sandbox.destroy();
  });

  it('ends a run at exit N and goes on', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    expect((await sandbox.run('y=1; exit 7')).exitCode).toBe(7);
    expect((await sandbox.run('echo "y=$y"')).stdout).toBe('y=1\n');
    await sandbox.destroy();
  });

  it('forks with the whole shell state', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    await sandbox.run('greet() { echo "hi $1"; }; count=3; cd /tmp');
    const copy = await sandbox.fork();
    expect((await copy.run('greet fork; echo $count; pwd')).stdout).toBe('hi fork\n3\n/tmp\n');
    await copy.run('count=4');
    expect((await sandbox.run('echo $count')).stdout).toBe('3\n');
    await sandbox.destroy();
    await copy.destroy();
  });

  it('restores exactly the state before a run that had to be killed', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    await sandbox.run('state=before; echo kept > kept.txt');
    const killed = await sandbox.run('state=during; echo lost > lost.txt; probe spin', { timeoutMs: 300 });
    expect(killed).toMatchObject({ exitCode: 124, errorClass: 'timeout' });
    expect((await sandbox.run('echo "$state"; read -r line < kept.txt; echo "$line"; [ -e lost.txt ] || echo "lost.txt is gone"')).stdout).toBe('before\nkept\nlost.txt is gone\n');
    await sandbox.destroy();
  });

  it('stops a shell loop at the deadline without a hard kill', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    await sandbox.run('n=1');
    const result = await sandbox.run('n=2; while :; do :; done', { timeoutMs: 300 });
    expect(result).toMatchObject({ exitCode: 124, errorClass: 'timeout' });
    expect(result.stderr).not.toContain('was killed');
    await sandbox.destroy();
  });
});
