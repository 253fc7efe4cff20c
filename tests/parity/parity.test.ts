// One table of system calls (cases.ts) through every way into the kernel that has them —
// a WASI tool making raw preview1 calls, the `airlock` imports, Python's channel, a foreign
// WASI program in its own worker (tests/wasi/src/sys.c over the call channel) — each
// giving the result and errno Linux gives, which the host's CPython checks first. The
// syscall core (src/kernel/sys) is what makes them agree; this is where a second copy of a
// meaning would show.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errno } from '../../src/kernel/errno.js';
import { pythonSnapshotReady } from '../../src/host/python/node-snapshot.js';
import { kernelBundlePath } from '../../src/host/node/kernel-bundle.js';
import { Sandbox, drainWarmPool } from '../../src/host/node/index.js';
import { PARITY_CASES, PATH_CALLS, PROCESS_CALLS, SANDBOX_ONLY_CALLS, type ParityCase } from './cases.js';

const script = fileURLToPath(new URL('./parity.py', import.meta.url));
const wasmDir = fileURLToPath(new URL('../wasm', import.meta.url));
const foreignSys = fileURLToPath(new URL('../wasi/bin/sys.wasm', import.meta.url));
const hostPython = spawnSync('python3', ['--version']).status === 0;
const TIMEOUT = 240_000;

const ERRNO_NAMES = new Map<number, string>(Object.entries(Errno).map(([name, value]) => [value, `E${name}`]));

/** What a case should print: its result, then the state of each `after` path. */
function expected(cases: ParityCase[]): Record<string, string> {
  return Object.fromEntries(cases.map((c) => [c.id, [c.expect, ...Object.entries(c.after ?? {}).map(([path, state]) => `${path} ${state}`)].join(' | ')]));
}

/** parity.py's "ID RESULT" lines as a record. */
function parseLines(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n').filter((l) => l.length > 0)) {
    const space = line.indexOf(' ');
    out[line.slice(0, space)] = line.slice(space + 1);
  }
  return out;
}

const pathCases = PARITY_CASES.filter((c) => PATH_CALLS.has(c.call[0] as string));
const airlockCases = PARITY_CASES.filter((c) => PROCESS_CALLS.has(c.call[0] as string) || SANDBOX_ONLY_CALLS.has(c.call[0] as string) || ['stat', 'lstat'].includes(c.call[0] as string));

describe.skipIf(!hostPython)('the parity table itself', () => {
  it('is what Linux does (the host CPython)', () => {
    const cases = PARITY_CASES.filter((c) => !SANDBOX_ONLY_CALLS.has(c.call[0] as string));
    const root = mkdtempSync(join(tmpdir(), 'airlock-parity-'));
    try {
      const run = spawnSync('python3', [script], { input: JSON.stringify({ root, cases }), encoding: 'utf8', timeout: 60_000 });
      expect(run.stderr).toBe('');
      expect(parseLines(run.stdout)).toEqual(expected(cases));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('every way into the kernel gives the same results', { timeout: TIMEOUT }, () => {
  let sandbox: Sandbox;
  let next = 0;

  beforeAll(async () => {
    sandbox = await Sandbox.create({ wasmDir });
  }, TIMEOUT);

  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
  });

  /** A fresh directory with the case's entries, made through the host API (and a probe for symlinks). */
  async function prepare(c: ParityCase): Promise<string> {
    const dir = `/tmp/parity-${next++}`;
    await sandbox.mkdir(dir);
    for (const entry of c.setup ?? []) {
      if ('dir' in entry) await sandbox.mkdir(`${dir}/${entry.dir}`);
      else if ('file' in entry) await sandbox.writeFile(`${dir}/${entry.file}`, entry.content ?? '', entry.mode === undefined ? {} : { mode: entry.mode });
      else await sandbox.run(['probe', 'sys', 'symlink', entry.target, `${dir}/${entry.symlink}`]);
    }
    return dir;
  }

  /**
   * A case through `probe sys` (`stat` through airlock's path_stat_ext when `statExt`), or
   * through the foreign program sys.wasm, which makes the same raw preview1 calls.
   */
  async function probe(c: ParityCase, statExt: boolean, program = 'probe'): Promise<string> {
    const dir = await prepare(c);
    const [op, ...args] = c.call as [string, ...string[]];
    const pathArgs: Record<string, number[]> = { rename: [0, 1], symlink: [1], spawn: args[0]?.includes('/') ? [0] : [] };
    const absolute = args.map((arg, index) => ((pathArgs[op] ?? (PATH_CALLS.has(op) ? [0] : [])).includes(index) ? `${dir}/${arg.replace(/^\.\//, '')}` : arg));
    const call = statExt && (op === 'stat' || op === 'lstat') ? `${op}-ext` : op;
    const run = await sandbox.run(program === 'probe' ? ['probe', 'sys', call, ...absolute] : [program, call, ...absolute], { cwd: dir });
    const line = run.stdout.trim();
    const errno = /^err (\d+)$/.exec(line);
    const result = errno === null ? line : ERRNO_NAMES.get(Number(errno[1])) ?? line;
    const after: string[] = [];
    for (const path of Object.keys(c.after ?? {})) after.push(`${path} ${await stateOf(`${dir}/${path}`)}`);
    return [result, ...after].join(' | ');
  }

  async function stateOf(path: string): Promise<string> {
    try {
      const info = await sandbox.stat(path, { follow: false });
      return info.kind === 'file' ? `file:${info.size}` : info.kind;
    } catch {
      return 'missing';
    }
  }

  async function throughProbe(cases: ParityCase[], statExt: boolean, program?: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const c of cases) out[c.id] = await probe(c, statExt, program);
    return out;
  }

  it('a WASI tool (raw preview1 calls)', async () => {
    expect(await throughProbe(pathCases, false)).toEqual(expected(pathCases));
  });

  it('a foreign WASI program (its own worker, the call channel)', async () => {
    await sandbox.writeFile('/tmp/sys.wasm', readFileSync(foreignSys), { mode: 0o755 });
    expect(await throughProbe(pathCases, false, '/tmp/sys.wasm')).toEqual(expected(pathCases));
  });

  it('the airlock imports', async () => {
    expect(await throughProbe(airlockCases, true)).toEqual(expected(airlockCases));
  });

  it('Python (its channel)', async () => {
    await pythonSnapshotReady(await kernelBundlePath());
    const root = `/tmp/parity-python`;
    await sandbox.mkdir(root);
    await sandbox.writeFile('/tmp/parity.py', readFileSync(script));
    const run = await sandbox.run(['python3', '/tmp/parity.py'], { stdin: JSON.stringify({ root, cases: PARITY_CASES }), timeoutMs: 120_000 });
    expect(run.stderr).toBe('');
    expect(parseLines(run.stdout)).toEqual(expected(PARITY_CASES));
  });
});
