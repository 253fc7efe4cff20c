// WASI preview1 conformance of foreign programs: the same programs (tests/wasi/src/
// conformance.c with raw preview1 calls, crates/wasi-programs through Rust's std) run under
// Airlock's `wasi-run` and under a reference runtime, Node's own node:wasi (libuv's
// uvwasi), with the same arguments, environment and a preopened empty directory; every
// line must agree. The few places where the reference differs from Linux and from the WASI
// specification's stated results are listed below with the reason. The `enosys-` lines are
// checked against Airlock's table (docs/limits.md): the reference implements those calls.

import { mkdtempSync, openSync, readFileSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WASI } from 'node:wasi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, drainWarmPool } from '../../src/host/node/index.js';

const binDir = fileURLToPath(new URL('./bin/', import.meta.url));
const ENV = { CONFORMANCE_VAR: 'v=1 with spaces' };

/**
 * Lines where node:wasi is not the reference, by program and check: what Airlock prints
 * and why it is right.
 */
const REFERENCE_DIFFERS: Record<string, Record<string, { airlock: string; reason: string }>> = {
  'conformance.wasm': {
    'fd_fdstat_get': {
      airlock: 'ok type=4 flags=0',
      reason: 'fdflags are those the file was opened with (none here); uvwasi reports DSYNC for a plain file',
    },
    'fd_fdstat_set_flags-append': {
      airlock: 'ok flags=1 size=10',
      reason: 'after fd_fdstat_set_flags(APPEND) the flags are APPEND alone; uvwasi adds DSYNC as above',
    },
    'path_open-nofollow-symlink': {
      airlock: 'ELOOP',
      reason: 'without SYMLINK_FOLLOW a final symlink is not followed: Linux openat(O_NOFOLLOW) gives ELOOP; uvwasi opens the target',
    },
  },
  'conformance-rs.wasm': {},
};

/** Every `enosys-` line of conformance.c: the calls docs/architecture.md §4 refuses. */
const ENOSYS_CALLS = ['poll_oneoff-fd', 'sock_recv', 'sock_send', 'sock_accept', 'sock_shutdown', 'proc_raise', 'fd_pread', 'fd_pwrite', 'fd_renumber', 'path_link'];

function linesOf(text: string): Map<string, string> {
  const lines = new Map<string, string>();
  for (const line of text.split('\n').filter((l) => l.length > 0)) {
    const colon = line.indexOf(': ');
    lines.set(colon < 0 ? line : line.slice(0, colon), colon < 0 ? '' : line.slice(colon + 2));
  }
  return lines;
}

/** Runs `program` under node:wasi with /work preopened on a fresh host directory. */
async function underNode(program: string, args: string[]): Promise<{ status: number; lines: Map<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-wasi-reference-'));
  const outPath = join(dir, '.stdout');
  const out = openSync(outPath, 'w');
  try {
    const work = join(dir, 'work');
    rmSync(work, { recursive: true, force: true });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(work);
    const wasi = new WASI({ version: 'preview1', args: [program, ...args], env: ENV, preopens: { '/work': work }, stdout: out, returnOnExit: true });
    const module = await WebAssembly.compile(readFileSync(join(binDir, program)));
    const instance = await WebAssembly.instantiate(module, wasi.getImportObject() as WebAssembly.Imports);
    const status = wasi.start(instance);
    closeSync(out);
    return { status, lines: linesOf(readFileSync(outPath, 'utf8')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('WASI conformance against node:wasi', { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let next = 0;

  beforeAll(async () => {
    sandbox = await Sandbox.create({});
    await sandbox.mkdir('/home/user/bin');
    for (const program of Object.keys(REFERENCE_DIFFERS)) {
      await sandbox.writeFile(`/home/user/bin/${program}`, readFileSync(join(binDir, program)), { mode: 0o755 });
    }
  }, 120_000);

  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
  });

  async function underAirlock(program: string, args: string[]): Promise<{ status: number; lines: Map<string, string>; stderr: string }> {
    const dir = `/tmp/conformance-${next++}`;
    await sandbox.mkdir(dir);
    const env = Object.entries(ENV).map(([name, value]) => `--env '${name}=${value}'`).join(' ');
    const result = await sandbox.run(`wasi-run --dir ${dir}::/work ${env} /home/user/bin/${program} ${args.join(' ')}`);
    return { status: result.exitCode, lines: linesOf(result.stdout), stderr: result.stderr };
  }

  for (const program of Object.keys(REFERENCE_DIFFERS)) {
    it(`${program} gives the reference's results`, async () => {
      const reference = await underNode(program, ['/work']);
      const airlock = await underAirlock(program, ['/work']);
      expect(airlock.stderr).toBe('');
      expect(airlock.status).toBe(7);
      expect(reference.status).toBe(7);
      const differs = REFERENCE_DIFFERS[program] ?? {};
      const expected = new Map([...reference.lines].map(([name, value]) => [name, differs[name]?.airlock ?? value]));
      // The spec's result, not the reference's: a 20 ms clock subscription waits at least 20 ms.
      // uvwasi's own sleep sometimes returns early on a loaded machine (seen once on CI:
      // `waited=short`), so its line is no oracle for that field.
      const clock = expected.get('poll_oneoff-clock');
      if (clock !== undefined) expected.set('poll_oneoff-clock', clock.replace(/waited=short$/, 'waited=enough'));
      expect(Object.fromEntries(airlock.lines)).toEqual(Object.fromEntries(expected));
      // Each listed difference is real: the reference does say something else.
      for (const [name, { airlock: value }] of Object.entries(differs)) expect(reference.lines.get(name)).not.toBe(value);
    });
  }

  it('gives ENOSYS for every call the table refuses, and proc_exit ends the program there', async () => {
    const airlock = await underAirlock('conformance.wasm', ['/work', '--enosys']);
    expect(airlock.status).toBe(7);
    for (const call of ENOSYS_CALLS) expect(airlock.lines.get(`enosys-${call}`), call).toBe('ENOSYS');
    expect(airlock.lines.get('proc_exit')).toBe('7');
    expect(airlock.lines.has('after proc_exit')).toBe(false);
  });
});
