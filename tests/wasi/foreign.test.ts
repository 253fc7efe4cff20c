// Foreign WASI programs (docs/wasi.md): any wasm32-wasi command in the filesystem runs as a
// process — by path, on PATH, from xargs, find -exec and Python's subprocess, in any
// position of a pipeline with both directions streaming — under the sandbox's limits, and a
// module that imports anything but WASI preview1 is refused naming the import. The programs
// are tests/wasi/src/*.c built by scripts/build-wasm.mjs (plain wasm32-wasi, not
// asyncified, their own memory).

import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonSnapshotReady } from '../../src/host/python/node-snapshot.js';
import { kernelBundlePath } from '../../src/host/node/kernel-bundle.js';
import { Sandbox, drainWarmPool, type NodeSandboxOptions } from '../../src/host/node/index.js';

const binDir = fileURLToPath(new URL('./bin/', import.meta.url));
const TIMEOUT = 120_000;

/** Writes every test program into /home/user/w/ of `sandbox`, executable. */
export async function installPrograms(sandbox: Sandbox): Promise<void> {
  await sandbox.mkdir('/home/user/w');
  for (const file of readdirSync(binDir).filter((f) => f.endsWith('.wasm'))) {
    await sandbox.writeFile(`/home/user/w/${file}`, readFileSync(`${binDir}${file}`), { mode: 0o755 });
  }
}

/** A fresh sandbox made with `options`, the named programs of bin/ in /home/user, for `use`. */
async function withPrograms<T>(options: NodeSandboxOptions, programs: string[], use: (sandbox: Sandbox) => Promise<T>): Promise<T> {
  const sandbox = await Sandbox.create(options);
  try {
    for (const name of programs) await sandbox.writeFile(`/home/user/${name}`, readFileSync(`${binDir}${name}`), { mode: 0o755 });
    return await use(sandbox);
  } finally {
    await sandbox.destroy();
  }
}

describe('foreign WASI programs', { timeout: TIMEOUT }, () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await Sandbox.create({});
    await installPrograms(sandbox);
  }, TIMEOUT);

  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
  });

  const run = (command: string, options: { timeoutMs?: number } = {}) => sandbox.run(command, { cwd: '/home/user/w', ...options });

  it('runs by path, with argv and its exit status', async () => {
    const result = await run('./echo.wasm one "two words"; ./true.wasm; echo "status $?"');
    expect(result.stdout).toBe('one two words\nstatus 0\n');
    expect(result.exitCode).toBe(0);
  });

  it.each([
    ['runs from PATH, with its name as argv[0]', 'mkdir -p ~/bin && cp echo.wasm ~/bin/wecho && PATH=~/bin:$PATH wecho found on PATH', 'found on PATH\n'],
    ['runs from xargs and find -exec', 'printf "a\\nb c\\n" | xargs ./echo.wasm x; find /home/user/w -name "true.wasm" -exec ./echo.wasm found {} \\;', 'x a b c\nfound /home/user/w/true.wasm\n'],
    ['ends `yes | head.wasm -n1`: the writer is stopped by the closed pipe', 'yes | ./head.wasm -n1; echo "${PIPESTATUS[@]}"', 'y\n141 0\n'],
    ['ends `./writer.wasm | head -c 5`: a foreign writer gets SIGPIPE too', './writer.wasm 100000000 2>/dev/null | head -c 5; echo " ${PIPESTATUS[@]}"', 'wwwww 141 0\n'],
    ['runs the same file again after it changed', 'cp echo.wasm same.wasm && ./same.wasm first && cp true.wasm same.wasm && ./same.wasm second; echo "status $?"', 'first\nstatus 0\n'],
  ])('%s', async (_name, command, stdout) => {
    expect((await run(command)).stdout).toBe(stdout);
  });

  it('streams through every position of a pipeline', async () => {
    expect((await run('seq 1 100000 | ./cat.wasm | ./cat.wasm | wc -l')).stdout.trim()).toBe('100000');
    expect((await run('./writer.wasm 327680 2>/dev/null | ./cat.wasm | wc -c')).stdout.trim()).toBe('327680');
    expect((await run('seq 3 | ./cat.wasm')).stdout).toBe('1\n2\n3\n');
  });

  it('blocks a writer on a full pipe until its reader goes', async () => {
    // The reader never reads: it waits until the writer has filled the 64 KiB pipe, gives it
    // time to write more (it must not), and exits; the pipe breaks and the writer ends
    // with SIGPIPE. (Waiting for the progress line, not a fixed sleep: the first run of a
    // module compiles it, which can take longer than any sleep on a loaded machine.)
    const reader = 'until grep -qx "wrote 65536" /tmp/progress 2>/dev/null; do sleep 0.02; done; sleep 0.2';
    const result = await run(`: >/tmp/progress; ./writer.wasm 1048576 2>>/tmp/progress | { ${reader}; }; echo "\${PIPESTATUS[@]}"; tail -1 /tmp/progress`);
    const [statuses, last] = result.stdout.trim().split('\n');
    expect(statuses).toBe('141 0');
    const written = Number(/^wrote (\d+)$/.exec(last ?? '')?.[1]);
    expect(written).toBeGreaterThanOrEqual(64 * 1024);
    expect(written).toBeLessThanOrEqual(64 * 1024 + 16 * 1024);
  });

  it('refuses a module that imports anything but WASI, naming the import', async () => {
    const result = await run('./bad-import.wasm');
    expect(result.exitCode).toBe(126);
    expect(result.stderr).toBe('./bad-import.wasm: cannot run: imports env.host_secret, which Airlock does not provide: a foreign program may import only wasi_snapshot_preview1 functions\n');
  });

  it('refuses a file that only looks like a module', async () => {
    await sandbox.writeFile('/home/user/w/broken.wasm', new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 9, 9]), { mode: 0o755 });
    const result = await run('./broken.wasm');
    expect(result.exitCode).toBe(126);
    expect(result.stderr).toMatch(/^\.\/broken\.wasm: cannot run: malformed module: /);
  });

  it('runs wasi-run with named preopens and only the given environment', async () => {
    const result = await run('mkdir -p /tmp/data && echo hi > /tmp/data/x && wasi-run --dir /tmp/data::/data --env A=1 ./cat.wasm < /tmp/data/x; wasi-run --bogus x; echo "status $?"');
    expect(result.stdout).toBe('hi\nstatus 2\n');
    expect(result.stderr).toContain("wasi-run: unrecognized option '--bogus'");
  });

  it('refuses wasi-run of something that is not a module', async () => {
    const result = await run('echo "#!/bin/sh" > /tmp/s.wasm; chmod +x /tmp/s.wasm; wasi-run /tmp/s.wasm; echo "status $?"; wasi-run /nope.wasm; echo "status $?"');
    expect(result.stdout).toBe('status 126\nstatus 127\n');
    expect(result.stderr).toBe('wasi-run: /tmp/s.wasm: not a wasm module\nwasi-run: /nope.wasm: No such file or directory\n');
  });

  it('runs from Python subprocess', async () => {
    await pythonSnapshotReady(await kernelBundlePath());
    const script = "import subprocess; r = subprocess.run(['./echo.wasm', 'from', 'python'], capture_output=True, text=True); print(r.returncode, r.stdout.strip())";
    const result = await run(`python3 -c "${script}"`, { timeoutMs: 90_000 });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('0 from python\n');
  });
});

describe('limits apply to foreign programs', { timeout: TIMEOUT }, () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await Sandbox.create({ limits: { memoryBytes: 16 * 1024 * 1024, stdoutBytes: 100_000 }, allowedTools: ['echo', 'cat', 'wc'] });
  }, TIMEOUT);

  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
  });

  it('keeps memory under memoryBytes', async () => {
    await sandbox.writeFile('/home/user/alloc.wasm', readFileSync(`${binDir}alloc.wasm`), { mode: 0o755 });
    await withPrograms({ limits: { memoryBytes: 16 * 1024 * 1024 } }, ['alloc.wasm'], async (unrestricted) => {
      const result = await unrestricted.run('./alloc.wasm');
      expect(result.exitCode).toBe(3);
      const got = Number(/after (\d+) MiB/.exec(result.stderr)?.[1]);
      expect(got).toBeGreaterThan(8);
      expect(got).toBeLessThan(16);
    });
  });

  it('ends a program busy without system calls at the deadline, and the session goes on', async () => {
    await withPrograms({}, ['spin.wasm'], async (spinning) => {
      await spinning.run('echo before > /home/user/kept');
      const result = await spinning.run('./spin.wasm', { timeoutMs: 1000 });
      expect(result.exitCode).toBe(124);
      const after = await spinning.run('cat /home/user/kept');
      expect(after.stdout).toBe('before\n');
    });
  });

  it('truncates output at stdoutBytes', async () => {
    await withPrograms({ limits: { stdoutBytes: 100_000 } }, ['writer.wasm'], async (writing) => {
      const result = await writing.run('./writer.wasm 1000000 2>/dev/null');
      expect(result.truncated).toBe(true);
      expect(result.stdout.length).toBe(100_000);
    });
  });

  it('counts a foreign program as `wasi-run` for the tool allowlist', async () => {
    await sandbox.writeFile('/home/user/true.wasm', readFileSync(`${binDir}true.wasm`), { mode: 0o755 });
    const result = await sandbox.run('/home/user/true.wasm');
    expect(result.exitCode).toBe(126);
    expect(result.stderr).toBe("airlock: wasi-run: not allowed by this sandbox's tool allowlist\n");
  });
});
