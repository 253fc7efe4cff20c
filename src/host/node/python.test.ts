// python3 in a Node sandbox, end to end: the command line, exit statuses, the kernel's
// filesystem and streams, pipelines and subprocesses through the kernel, a fresh
// interpreter per invocation. Interpreter start-up is slow on a loaded machine, so these
// tests share one sandbox and have generous timeouts (no wall-clock assertions).

import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNothingCarriedOver } from '../../../tests/python-isolation/state.js';
import { sharedPythonSandbox } from '../../../tests/python-isolation/sandbox.js';
import { pythonSnapshotReady } from '../python/node-snapshot.js';
import { kernelBundlePath } from './kernel-bundle.js';
import { Sandbox, drainWarmPool } from './index.js';

const shellBuilt = existsSync(fileURLToPath(new URL('../../../public/wasm/shell.wasm', import.meta.url)));
const TIMEOUT = 240_000;

/** The describe block's shared sandbox (sharedPythonSandbox). */
let sandbox: () => Sandbox;

const run = async (script: string, stdin?: string): Promise<{ out: string; err: string; code: number }> => {
  const result = await sandbox().run(script, { stdin, timeoutMs: 120_000 });
  return { out: result.stdout, err: result.stderr, code: result.exitCode };
};

describe.skipIf(!shellBuilt)('python3 in a Node sandbox', { timeout: TIMEOUT }, () => {
  sandbox = sharedPythonSandbox(TIMEOUT);

  it('runs -c with arguments and reports exit statuses', async () => {
    expect(await run(`python3 -c 'import sys; print(sys.argv)' a 'b c'`)).toEqual({ out: "['-c', 'a', 'b c']\n", err: '', code: 0 });
    expect((await run(`python3 -c 'import sys; sys.exit(7)'; echo $?`)).out).toBe('7\n');
    const failed = await run(`python3 -c '1/0'`);
    expect(failed.code).toBe(1);
    expect(failed.err).toBe('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nZeroDivisionError: division by zero\n');
    expect((await run('python3 -V')).out).toMatch(/^Python 3\.\d+\.\d+\n$/);
  });

  it('sees the kernel filesystem with its errors', async () => {
    const script = [
      `python3 -c 'open("/home/user/data.txt", "w").write("from python\\n")'`,
      'cat /home/user/data.txt',
      `echo shell > /tmp/s.txt; python3 -c 'print(open("/tmp/s.txt").read().strip())'`,
      `python3 -c '
import errno
try:
    open("/etc/nope", "w")
except OSError as e:
    print(e.errno == errno.EROFS)'`,
    ].join('\n');
    expect((await run(script)).out).toBe('from python\nshell\nTrue\n');
  });

  it('works at any position of a pipeline', async () => {
    expect((await run(`seq 1 100000 | python3 -c 'import sys; print(sum(int(l) for l in sys.stdin))'`)).out).toBe('5000050000\n');
    const broken = await run(`python3 -c 'while True: print(1)' | head -1; echo "\${PIPESTATUS[@]}"`);
    expect(broken.out).toBe('1\n1 0\n');
    expect((await run(`printf 'b\\na\\nb\\n' > in.txt; python3 -c 'import sys; sys.stdout.write(open("in.txt").read())' | sort | uniq -c`)).out).toBe('      1 a\n      2 b\n');
    expect((await run(`python3 -c 'print(input()[::-1])' <<'EOF'\nhello\nEOF`)).out).toBe('olleh\n');
  });

  it('starts sandbox processes with subprocess and os.system', async () => {
    const script = `python3 - <<'EOF'
import subprocess, os
print(subprocess.run(['echo', 'hi'], capture_output=True, text=True).stdout, end='')
print(subprocess.check_output('echo a; echo b | tr a-z A-Z', shell=True).decode(), end='')
p = subprocess.Popen(['tr', 'a-z', 'A-Z'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
print(p.communicate(b'piped')[0].decode())
print(os.system('exit 3') >> 8)
print(os.popen('echo popen').read(), end='')
try:
    subprocess.run(['no-such-tool'])
except FileNotFoundError:
    print('not found')
EOF`;
    expect(await run(script)).toEqual({ out: 'hi\na\nB\nPIPED\n3\npopen\nnot found\n', err: '', code: 0 });
  });

  it('stops at the run deadline: a busy loop is interrupted, sleep ends', async () => {
    for (const code of ['while True: pass', 'import time; time.sleep(100)']) {
      const result = await sandbox().run(['python3', '-c', code], { timeoutMs: 3000 });
      expect(result.exitCode).toBe(124);
    }
    expect((await run(`python3 -c 'print("still here")'`)).out).toBe('still here\n');
  });

  it('refuses pip, micropip and venv clearly', async () => {
    const pip = await run('pip install requests');
    expect(pip).toMatchObject({ code: 1, err: 'pip: pip is not available: no package source is configured for this sandbox, so packages cannot be installed\n' });
    expect((await run('python3 -m pip install x')).code).toBe(1);
    expect((await run(`python3 -c 'import micropip'`)).err).toContain('micropip is not available');
    expect((await run('python3 -m venv v')).err).toContain('virtual environments are not supported');
  });

  it('python3 -i reads statements from stdin and ends 0 at its end, as CPython does', async () => {
    const piped = await run(`echo 'print(1+1)' | python3 -i`);
    expect(piped.code).toBe(0);
    // Prompts and the banner go to stderr when stdin is not a terminal, as CPython's.
    expect(piped.out).toBe('2\n');
    expect(piped.err).toMatch(/^Python 3\.[\s\S]*\n>>> >>> \n$/);
    expect((await run('python3 -i </dev/null')).code).toBe(0);
  });

  it('leaves nothing of one run in the next: globals, modules, builtins, files, env, cwd, signals, memory', async () => {
    await expectNothingCarriedOver(sandbox());
  });

  it('gives every invocation a fresh interpreter', async () => {
    const out = await run(`python3 -c 'import json, sys; json.x = 1; sys.modules["leak"] = 1; print(1)'; python3 -c 'import json, sys; print(hasattr(json, "x"), "leak" in sys.modules)'`);
    expect(out.out).toBe('1\nFalse False\n');
  });
});

describe.skipIf(!shellBuilt)('python3 network through the host', { timeout: TIMEOUT }, () => {
  let server: Server;
  let port = 0;
  let netSandbox: Sandbox;

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        response.setHeader('X-Test', 'yes');
        response.end(`${request.method} ${request.url} ${body}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    await pythonSnapshotReady(await kernelBundlePath());
    netSandbox = await Sandbox.create({ network: { allowedHosts: [`127.0.0.1:${port}`] } });
  }, TIMEOUT);

  afterAll(async () => {
    await netSandbox?.destroy();
    drainWarmPool();
    server?.close();
  });

  it('urllib and http.client go through the host and its policy', async () => {
    const script = `python3 - <<'EOF'
import urllib.request, urllib.error, http.client
r = urllib.request.urlopen('http://127.0.0.1:${port}/a?b=1')
print(r.status, r.headers['X-Test'], r.read().decode())
print(urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:${port}/p', data=b'body')).read().decode())
c = http.client.HTTPConnection('127.0.0.1', ${port})
c.request('GET', '/x')
print(c.getresponse().read().decode())
try:
    urllib.request.urlopen('https://example.com/')
except urllib.error.URLError as e:
    print('refused:', 'network policy' in str(e.reason))
EOF`;
    const result = await netSandbox.run(script, { timeoutMs: 120_000 });
    expect(result.stdout).toBe('200 yes GET /a?b=1 \nPOST /p body\nGET /x \nrefused: True\n');
  });
});
