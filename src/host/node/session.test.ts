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

  it('reports the directory each run leaves the shell in, and the one a killed run goes back to', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    expect((await sandbox.run('true')).cwd).toBe('/home/user');
    expect((await sandbox.run('probe mkdir /tmp/a && cd /tmp/a && pushd .. >/dev/null')).cwd).toBe('/tmp');
    expect((await sandbox.run('cd a')).cwd).toBe('/tmp/a');
    expect((await sandbox.run('cd ..')).cwd).toBe('/tmp');
    expect((await sandbox.run(['probe', 'pwd'], { cwd: '/' })).cwd).toBe('/');
    const killed = await sandbox.run('cd /; probe spin', { timeoutMs: 300 });
    expect(killed.errorClass).toBe('timeout');
    expect(killed.cwd).toBe('/tmp');
    expect((await sandbox.run('pwd')).stdout).toBe('/tmp\n');
    await sandbox.destroy();
  });

  it('keeps the history of runs, in forks too', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    await sandbox.run('x=1');
    await sandbox.run('echo "$x" >/dev/null');
    const copy = await sandbox.fork();
    expect((await copy.run('history')).stdout).toBe('    1  x=1\n    2  echo "$x" >/dev/null\n    3  history\n');
    expect((await sandbox.run('history 1')).stdout).toBe('    3  history 1\n');
    await sandbox.destroy();
    await copy.destroy();
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

  it('forks a fork of 1,000 files and shell state, and none of the three sees the others\' writes', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    await sandbox.run('probe mkdir data && for ((i = 1; i <= 1000; i++)); do echo "file $i" > data/f$i; done; who=parent; cd data');
    const child = await sandbox.fork();
    const grandchild = await child.fork();
    await sandbox.run('echo parent > f1; probe unlink f2; who=parent2');
    await child.run('echo child > f1; echo child > f3; who=child');
    await grandchild.run('echo grandchild > f1; probe unlink f3; echo > new; who=grandchild');
    const look = 'set -- *; echo "$who $PWD $#"; for f in f1 f1000 f2 f3; do if [ -e $f ]; then read -r line < $f; echo "$line"; else echo missing; fi; done';
    expect((await sandbox.run(look)).stdout).toBe('parent2 /home/user/data 999\nparent\nfile 1000\nmissing\nfile 3\n');
    expect((await child.run(look)).stdout).toBe('child /home/user/data 1000\nchild\nfile 1000\nfile 2\nchild\n');
    expect((await grandchild.run(look)).stdout).toBe('grandchild /home/user/data 1000\ngrandchild\nfile 1000\nfile 2\nmissing\n');
    await Promise.all([sandbox, child, grandchild].map((s) => s.destroy()));
  });


  it('commits the changes of a run whether they fit in its reply or need more pages', async () => {
    const sandbox = await Sandbox.create({ wasmDir, limits: { messageBytes: 256 * 1024 } });
    await sandbox.run('probe emit 10 > small.bin; probe emit 700000 > big.bin');
    const copy = await sandbox.fork();
    expect((await copy.run('probe stat small.bin; probe stat big.bin')).stdout).toMatch(/^file 10 \d+\nfile 700000 \d+\n$/);
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

  it('forks with arrays, aliases, options, traps and the directory stack', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    await sandbox.run('declare -A m=([k]=v); a=(1 2 3); shopt -s expand_aliases; alias ll="echo listed"; set -u; shopt -s nullglob; trap "echo usr1" USR1; pushd /tmp >/dev/null');
    const copy = await sandbox.fork();
    const script = 'echo "${m[k]} ${a[2]}"; ll; [[ $- == *u* ]] && echo nounset; shopt -q nullglob && echo nullglob; trap -p USR1; dirs';
    const expected = 'v 3\nlisted\nnounset\nnullglob\ntrap -- \'echo usr1\' SIGUSR1\n/tmp ~\n';
    expect((await copy.run(script)).stdout).toBe(expected);
    await copy.run('unalias ll; set +u; a=()');
    expect((await sandbox.run(script)).stdout).toBe(expected);
    await sandbox.destroy();
    await copy.destroy();
  });

  it('runs subshells, $( ) and shell pipeline stages as child processes that change nothing', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    const result = await sandbox.run(
      'x=1; echo "$BASHPID"; (x=2; echo "$BASHPID"); echo "$(x=3; echo "$BASHPID")"; f() { x=4; echo "$BASHPID"; }; f | probe cat; echo set | read -r x; echo "x=$x"',
    );
    const lines = result.stdout.trim().split('\n');
    expect(lines.pop()).toBe('x=1');
    expect(new Set(lines).size).toBe(4);
    expect((await sandbox.run('echo "$x"')).stdout).toBe('1\n');
    await sandbox.destroy();
  });

  it('runs shell-code pipeline stages concurrently (an endless producer ends with its reader)', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    const result = await sandbox.run('while :; do echo y; done | probe head1; echo "status ${PIPESTATUS[*]}"', { timeoutMs: 5000 });
    expect(result.stdout).toBe('y\nstatus 141 0\n');
    await sandbox.destroy();
  });

  it('runs background jobs against the kernel: $!, jobs, kill, wait', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    const result = await sandbox.run(
      'probe sleep 20 & wait $!; echo "quick $?"; probe sleep 10000 & pid=$!; jobs; [[ $pid == [0-9]* ]] && echo "pid ok"; kill %1; wait $pid; echo "killed $?"; jobs',
      { timeoutMs: 5000 },
    );
    expect(result.stdout).toBe('quick 0\n[1]+  Running                 probe sleep 10000 &\npid ok\nkilled 143\n');
    await sandbox.destroy();
  });

  /** Runs each case in turn: its stderr must contain `stderr`, its stdout be `stdout` (and its status `exitCode`, where given). */
  async function expectRuns(sandbox: Sandbox, cases: Array<{ command: string; stderr: string; stdout: string; exitCode?: number; timeoutMs?: number }>): Promise<void> {
    for (const { command, stderr, stdout, exitCode, timeoutMs } of cases) {
      const result = await sandbox.run(command, timeoutMs === undefined ? {} : { timeoutMs });
      expect(result.stderr, command).toContain(stderr);
      expect(result.stdout, command).toBe(stdout);
      if (exitCode !== undefined) expect(result.exitCode, command).toBe(exitCode);
    }
  }

  it('ends runaway recursion and $( ) nesting with an error, and the session goes on', async () => {
    const sandbox = await Sandbox.create({ wasmDir });
    // Written out 60 deep, the parser refuses it; reached at run time, the shell does.
    const deep = `${'$(echo '.repeat(60)}x${')'.repeat(60)}`;
    await expectRuns(sandbox, [
      // As in bash, the error abandons the rest of the line; the next line runs.
      { command: 'f() { f; }; f; echo same line\necho "next line $?"', stderr: 'maximum function nesting level exceeded (1000)', stdout: 'next line 1\n' },
      { command: `v=${deep}; echo "status $?"`, stderr: 'nesting too deep', stdout: '', exitCode: 2 },
      { command: 'f() { if (($1 > 0)); then v=$(f $(($1 - 1))) || return; echo "$v"; else echo bottom; fi; }; f 60; echo "status $?"', stderr: 'nesting deeper than 50 levels', stdout: 'status 1\n', timeoutMs: 20_000 },
      { command: 'echo still here', stderr: '', stdout: 'still here\n' },
    ]);
    await sandbox.destroy();
  });

  it('takes callDepth and substitutionDepth from the sandbox, in child shells too, naming them', async () => {
    const sandbox = await Sandbox.create({ wasmDir, limits: { callDepth: 20, substitutionDepth: 4 } });
    const nested = 'h() { if (($1 > 0)); then v=$(h $(($1 - 1))) || return; echo "$v"; else echo bottom; fi; }; ';
    await expectRuns(sandbox, [
      { command: 'f() { echo $1 >> depth; f $(($1 + 1)); }; f 1; echo same line\necho "next $?"; mapfile -t d < depth; echo "${d[-1]}"', stderr: "f: maximum function nesting level exceeded (20) (the sandbox's callDepth limit)", stdout: 'next 1\n20\n' },
      // A subshell starts from the shell's state and keeps the limit.
      { command: 'g() { g; }; (g); echo "status $?"', stderr: "g: maximum function nesting level exceeded (20) (the sandbox's callDepth limit)", stdout: 'status 1\n' },
      { command: `${nested} h 4`, stderr: '', stdout: 'bottom\n' },
      { command: `${nested} h 5; echo "status $?"`, stderr: "nesting deeper than 4 levels (the sandbox's substitutionDepth limit)", stdout: 'status 1\n' },
    ]);
    // After a hard kill the shell restarts from the checkpoint with the same limits.
    await sandbox.run('probe spin', { timeoutMs: 200 });
    expect((await sandbox.run('k() { k; }; k')).stderr).toContain('exceeded (20) (the sandbox');
    await sandbox.destroy();
    await expect(Sandbox.create({ wasmDir, limits: { callDepth: 5000 } })).rejects.toThrow(/callDepth must be a whole number from 1 to 1000/);
    await expect(Sandbox.create({ wasmDir, limits: { substitutionDepth: 2.5 } })).rejects.toThrow(/substitutionDepth/);
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
