// python3 inline on the kernel thread (docs/architecture.md §2 mode 3, what pages without
// SharedArrayBuffer get), forced by the host's `pythonMode: 'inline'` option in a real Node
// sandbox child: Pyodide loads into the hardened kernel realm and every kernel call it
// makes is a synchronous call on the kernel thread, which runs the other processes while
// Python waits. Interpreter start-up is slow on a loaded machine, so the tests share one
// sandbox and have generous timeouts (no wall-clock assertions).

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonSnapshotReady } from '../python/node-snapshot.js';
import { kernelBundlePath } from './kernel-bundle.js';
import { expectNothingCarriedOver } from '../../../tests/python-isolation/state.js';
import { Sandbox, drainWarmPool, type RunOptions } from './index.js';

const shellBuilt = existsSync(fileURLToPath(new URL('../../../public/wasm/shell.wasm', import.meta.url)));
const TIMEOUT = 240_000;

let sandbox: Sandbox;

const run = async (script: string | string[], options: RunOptions = {}): Promise<{ out: string; err: string; code: number }> => {
  const result = await sandbox.run(script, { timeoutMs: 120_000, ...options });
  return { out: result.stdout, err: result.stderr, code: result.exitCode };
};

describe.skipIf(!shellBuilt)('python3 inline in a Node sandbox', { timeout: TIMEOUT }, () => {
  beforeAll(async () => {
    await pythonSnapshotReady(await kernelBundlePath());
    sandbox = await Sandbox.create({ pythonMode: 'inline' });
  }, TIMEOUT);

  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
  });

  it('runs -c, scripts and files on the kernel filesystem, with exit statuses', async () => {
    expect(await run(`python3 -c 'print(1)'`)).toEqual({ out: '1\n', err: '', code: 0 });
    expect((await run(`python3 -c 'import sys; sys.exit(7)'; echo $?`)).out).toBe('7\n');
    const failed = await run(`python3 -c '1/0'`);
    expect(failed.code).toBe(1);
    expect(failed.err).toContain('ZeroDivisionError: division by zero');
    const script = `printf 'import sys\\nprint(sys.argv[1:], open("/tmp/in.txt").read().strip())\\nopen("out.txt", "w").write("from python")\\n' > s.py
echo data > /tmp/in.txt
python3 s.py a b && cat out.txt`;
    expect((await run(script)).out).toBe("['a', 'b'] data\nfrom python");
  });

  it('reads pipes fed by processes it runs while it waits', async () => {
    expect((await run(`seq 1 1000 | python3 -c 'import sys; print(sum(int(l) for l in sys.stdin))'`)).out).toBe('500500\n');
    expect((await run(`seq 1 100000 | python3 -c 'import sys; print(sum(int(l) for l in sys.stdin))' | cat`)).out).toBe('5000050000\n');
    expect((await run(`python3 -c 'print(input()[::-1])' <<'EOF'\nhello\nEOF`)).out).toBe('olleh\n');
  });

  it('writes into pipelines, and ends with BrokenPipe when the reader goes', async () => {
    expect((await run(`python3 -c 'while True: print(1)' | head -1; echo "\${PIPESTATUS[@]}"`)).out).toBe('1\n1 0\n');
    const gen = `printf 'for w in "b a b c b".split(): print(w)\\n' > gen.py; python3 gen.py | sort | uniq -c`;
    expect((await run(gen)).out).toBe('      1 a\n      3 b\n      1 c\n');
  });

  it('starts sandbox processes with subprocess and os.system', async () => {
    const script = `mkdir -p d && touch d/x d/y && cd d && python3 - <<'EOF'
import subprocess, os
print(subprocess.check_output(['ls']).decode(), end='')
print(subprocess.run('echo a; echo b | tr a-z A-Z', shell=True, capture_output=True, text=True).stdout, end='')
p = subprocess.Popen(['tr', 'a-z', 'A-Z'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
print(p.communicate(b'piped')[0].decode())
print(os.system('exit 3') >> 8)
print(subprocess.run(['sleep', '0.05']).returncode)
EOF`;
    expect(await run(script)).toEqual({ out: 'x\ny\na\nB\nPIPED\n3\n0\n', err: '', code: 0 });
  });

  it('leaves nothing of one run in the next: globals, modules, builtins, files, env, cwd, signals, memory', async () => {
    await expectNothingCarriedOver(sandbox);
  });

  it('gives each run a fresh interpreter', async () => {
    const out = await run(`python3 -c 'import json, sys; json.x = 1; sys.modules["leak"] = 1; print(1)'; python3 -c 'import json, sys; print(hasattr(json, "x"), "leak" in sys.modules)'`);
    expect(out.out).toBe('1\nFalse False\n');
  });

  it('fails waits no other process can end with EDEADLK and says why, instead of hanging', async () => {
    const both = await run(`python3 -c 'print("x" * 200000)' | python3 -c 'import sys; print(len(sys.stdin.read()))'`);
    expect(both.err).toContain('python3: every process is waiting: deadlock (python3 runs inline on the kernel thread here: no SharedArrayBuffer)');
    expect(both.err).toContain('OSError: [Errno 16] Resource deadlock would occur');
    const self = await run(`python3 -c '
import errno, os
r, w = os.pipe()
try:
    os.read(r, 1)
except OSError as e:
    print(e.errno == errno.EDEADLK)'`);
    expect(self.out).toBe('True\n');
  });

  it('cannot wait for terminal input from the page: a clear error', async () => {
    const result = await run(`python3 -c 'print(input())'`, { interactive: true });
    expect(result.err).toContain('python3: cannot wait for terminal input');
    expect(result.code).toBe(1);
  });

  it('is stopped by the hard kill in a loop without calls; the run is rolled back, the sandbox carries on', async () => {
    await run('echo kept > kept.txt');
    expect((await run(`echo lost > lost.txt; python3 -c 'while True: pass'`, { timeoutMs: 3000 })).code).toBe(124);
    expect((await run(`cat kept.txt; ls lost.txt 2>/dev/null; python3 -c 'print("still here")'`)).out).toBe('kept\nstill here\n');
  });

  it('ends a sleeping interpreter at the deadline with 124', async () => {
    expect((await run(['python3', '-c', 'import time; time.sleep(100)'], { timeoutMs: 3000 })).code).toBe(124);
  });

  // Each inline interpreter used to keep ~45 MiB of the child for good (Pyodide's
  // MessagePort held its Module: pyodide-boot.ts, withoutMessageChannel), so some forty
  // reached the sandbox's 2 GiB ceiling (errorClass 'limit'). 60 interpreters of ~50 MiB
  // each (20 MB of it a bytearray) would need ~3 GiB if any were kept.
  it('gives every interpreter back: 60 in one sandbox stay under its 2 GiB memory ceiling', { timeout: 1_200_000 }, async () => {
    const own = await Sandbox.create({ pythonMode: 'inline' });
    try {
      for (let i = 0; i < 60; i++) {
        const result = await own.run(['python3', '-c', 'x = bytearray(20_000_000); print(len(x))'], { timeoutMs: 120_000 });
        expect({ i, out: result.stdout, errorClass: result.errorClass, code: result.exitCode }).toEqual({ i, out: '20000000\n', errorClass: null, code: 0 });
      }
    } finally {
      await own.destroy();
    }
  });
});
