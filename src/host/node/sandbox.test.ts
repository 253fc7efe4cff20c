// The host API in Node, end to end through the hardened child process, with the probe
// test program as the only tool.

import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LimitError, SandboxClosedError, SandboxFsError } from '../../protocol/errors.js';
import { Sandbox, drainWarmPool, type NodeSandboxOptions } from './index.js';

const wasmDir = fileURLToPath(new URL('../../../tests/wasm', import.meta.url));
const create = (options: NodeSandboxOptions = {}): Promise<Sandbox> => Sandbox.create({ wasmDir, ...options });

afterAll(() => drainWarmPool());

describe('runs', () => {
  it('runs a program and returns its output, status and timing', async () => {
    const sandbox = await create();
    const result = await sandbox.run(['probe', 'echo', 'hello', 'sandbox']);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'hello sandbox\n', stderr: '', truncated: false, errorClass: null });
    expect(result.durationMs).toBeGreaterThan(0);
    expect((await sandbox.run(['probe', 'exit', '7'])).exitCode).toBe(7);
    await sandbox.destroy();
  });

  it('streams output to the callbacks as it is produced', async () => {
    const sandbox = await create();
    const chunks: string[] = [];
    const result = await sandbox.run(['probe', 'emit', '200000'], { onStdout: (text) => chunks.push(text) });
    expect(chunks.join('')).toBe(result.stdout);
    expect(result.stdout.length).toBe(200000);
    await sandbox.destroy();
  });

  it('passes stdin, cwd and env', async () => {
    const sandbox = await create();
    expect((await sandbox.run(['probe', 'cat'], { stdin: 'in\n' })).stdout).toBe('in\n');
    expect((await sandbox.run(['probe', 'pwd'], { cwd: '/tmp' })).stdout).toBe('/tmp\n');
    expect((await sandbox.run(['probe', 'env'], { env: { GREETING: 'hi' } })).stdout).toContain('GREETING=hi\n');
    // A run's env overrides the sandbox's, and a key named __proto__ is a variable like any other.
    const env = (await sandbox.run(['probe', 'env'], { env: JSON.parse('{"__proto__":"x","HOME":"/tmp","PWD":"/nowhere"}') as Record<string, string> })).stdout.split('\n');
    expect(env).toContain('__proto__=x');
    expect(env).toContain('HOME=/tmp');
    expect(env).toContain('PWD=/nowhere');
    expect(env.filter((line) => line.startsWith('HOME='))).toHaveLength(1);
    await sandbox.destroy();
  });
});

describe('files', () => {
  it('reads, writes, lists, stats and removes', async () => {
    const sandbox = await create({ files: { 'start.txt': 'initial' } });
    expect(await sandbox.readTextFile('start.txt')).toBe('initial');
    await sandbox.mkdir('a/b/c', { recursive: true });
    await sandbox.writeFile('a/b/c/f.bin', new Uint8Array([0, 255, 10]));
    expect(await sandbox.readFile('/home/user/a/b/c/f.bin')).toEqual(new Uint8Array([0, 255, 10]));
    expect(await sandbox.readDir('a/b/c')).toEqual([{ name: 'f.bin', kind: 'file' }]);
    expect((await sandbox.stat('a/b/c/f.bin')).size).toBe(3);
    expect((await sandbox.stat('a/b/c/f.bin')).target).toBeUndefined();
    await sandbox.run(['probe', 'symlink', 'c/f.bin', '/home/user/a/b/link']);
    expect(await sandbox.stat('a/b/link', { follow: false })).toMatchObject({ kind: 'symlink', target: 'c/f.bin', size: 7 });
    expect((await sandbox.stat('a/b/link')).kind).toBe('file');
    expect((await sandbox.run(['probe', 'read', 'a/b/c/f.bin'])).stdoutBytes).toEqual(new Uint8Array([0, 255, 10]));
    await sandbox.rm('a', { recursive: true });
    await expect(sandbox.stat('a')).rejects.toMatchObject({ name: 'SandboxFsError', code: 'ENOENT' });
    await sandbox.destroy();
  });

  it('moves files larger than one message in pieces', async () => {
    const sandbox = await create({ limits: { messageBytes: 256 * 1024 } });
    const big = new Uint8Array(1_000_000).map((_, i) => i % 251);
    await sandbox.writeFile('big.bin', big);
    // Buffer.equals: vitest's deep equality takes seconds on a megabyte.
    expect(Buffer.from(await sandbox.readFile('big.bin')).equals(Buffer.from(big))).toBe(true);
    expect((await sandbox.run(['probe', 'stat', 'big.bin'])).stdout).toMatch(/^file 1000000 /);
    await sandbox.destroy();
  });

  it('refuses writes outside the writable trees with a typed error', async () => {
    const sandbox = await create();
    const error = await sandbox.writeFile('/etc/passwd', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxFsError);
    expect(error).toMatchObject({ code: 'EROFS', path: '/etc/passwd' });
    await sandbox.destroy();
  });

  it('mounts host data read-only', async () => {
    const sandbox = await create();
    await sandbox.mount('/home/user/data', { 'a.txt': 'mounted', 'sub/b.txt': 'deeper' });
    expect((await sandbox.run(['probe', 'read', 'data/sub/b.txt'])).stdout).toBe('deeper');
    expect((await sandbox.run(['probe', 'write', 'data/a.txt', 'changed'])).stdout).toBe('err 69\n');
    await sandbox.destroy();
  });
});

describe('limits', () => {
  it('rejects a command over commandBytes before it reaches the sandbox', async () => {
    const sandbox = await create({ limits: { commandBytes: 100 } });
    const error = await sandbox.run('x'.repeat(101)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitError);
    expect(error).toMatchObject({ limit: 'commandBytes', value: 100 });
    await sandbox.destroy();
  });

  it('refuses host writes past fsBytes with a LimitError naming it', async () => {
    const sandbox = await create({ limits: { fsBytes: 1000 } });
    await sandbox.writeFile('ok', new Uint8Array(600));
    const error = await sandbox.writeFile('too-much', new Uint8Array(600)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitError);
    expect(error).toMatchObject({ limit: 'fsBytes', value: 1000 });
    expect((await sandbox.readFile('ok')).length).toBe(600);
    await sandbox.destroy();
  });

  it('truncates output past stdoutBytes and says so', async () => {
    const sandbox = await create({ limits: { stdoutBytes: 5000 } });
    const result = await sandbox.run(['probe', 'emit', '100000']);
    expect(result.stdout.length).toBe(5000);
    expect(result.truncated).toBe(true);
    await sandbox.destroy();
  });

  it('rejects invalid limits with a clear error', async () => {
    await expect(create({ limits: { fsBytes: -1 } })).rejects.toThrow(/fsBytes must be a positive number/);
  });
});

describe('timeouts', () => {
  it('ends a run at its deadline cooperatively (exit 124)', async () => {
    const sandbox = await create();
    const result = await sandbox.run(['probe', 'sleep', '10000'], { timeoutMs: 200 });
    expect(result).toMatchObject({ exitCode: 124, errorClass: 'timeout' });
    expect(result.durationMs).toBeLessThan(2000);
    await sandbox.destroy();
  });

  it('kills a loop without syscalls, restores the sandbox and keeps its files', async () => {
    const sandbox = await create({ files: { 'kept.txt': 'still here' } });
    await sandbox.run(['probe', 'write', 'before.txt', 'written by an earlier run']);
    const result = await sandbox.run(['probe', 'spin'], { timeoutMs: 200 });
    expect(result).toMatchObject({ exitCode: 124, errorClass: 'timeout' });
    expect(result.stderr).toContain('was killed');
    expect(await sandbox.readTextFile('kept.txt')).toBe('still here');
    expect((await sandbox.run(['probe', 'read', 'before.txt'])).stdout).toBe('written by an earlier run');
    expect((await sandbox.run(['probe', 'echo', 'alive'])).stdout).toBe('alive\n');
    await sandbox.destroy();
  });

  it('cancels a run when its signal aborts', async () => {
    const sandbox = await create();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await sandbox.run(['probe', 'sleep', '10000'], { signal: controller.signal });
    expect(result.exitCode).toBe(130);
    expect(result.errorClass).toBe('cancelled');
    await sandbox.destroy();
  });
});

describe('snapshots and fork', () => {
  it('restores files to a snapshot', async () => {
    const sandbox = await create();
    await sandbox.writeFile('f.txt', 'version 1');
    const id = await sandbox.snapshot();
    await sandbox.writeFile('f.txt', 'version 2');
    await sandbox.writeFile('g.txt', 'new');
    await sandbox.restore(id);
    expect(await sandbox.readTextFile('f.txt')).toBe('version 1');
    await expect(sandbox.stat('g.txt')).rejects.toMatchObject({ code: 'ENOENT' });
    await sandbox.destroy();
  });

  it('forks an independent copy', async () => {
    const sandbox = await create({ files: { 'shared.txt': 'original' } });
    const copy = await sandbox.fork();
    await copy.writeFile('shared.txt', 'changed in the copy');
    expect(await sandbox.readTextFile('shared.txt')).toBe('original');
    expect(await copy.readTextFile('shared.txt')).toBe('changed in the copy');
    await sandbox.destroy();
    await copy.destroy();
  });

  it('rejects calls after destroy', async () => {
    const sandbox = await create();
    await sandbox.destroy();
    await expect(sandbox.run(['probe', 'echo'])).rejects.toBeInstanceOf(SandboxClosedError);
  });
});

describe('allowlist', () => {
  it('refuses tools outside it', async () => {
    const sandbox = await create({ allowedTools: ['ls'] });
    const result = await sandbox.run(['probe', 'echo', 'x']);
    expect(result.exitCode).toBe(126);
    expect(result.stderr).toContain('not allowed');
    await sandbox.destroy();
  });
});

describe('realm hardening', () => {
  it('the child reports no forbidden globals and no code generation', async () => {
    const sandbox = await create();
    expect(await sandbox.selfCheck()).toEqual({ reachableGlobals: [], codeGeneration: 'blocked' });
    await sandbox.destroy();
  });
});

describe('terminal runs and saved sessions', () => {
  it('keeps stdin open for writeStdin() and presents a terminal when asked', async () => {
    const sandbox = await create();
    const running = sandbox.run(['probe', 'cat'], { interactive: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sandbox.writeStdin('typed line\n');
    await sandbox.writeStdin(null);
    expect((await running).stdout).toBe('typed line\n');
    expect((await sandbox.run(['probe', 'isatty'], { terminal: true })).stdout).toBe('0 2\n1 2\n2 2\n');
    await sandbox.destroy();
  });

  it('exports its state, reports each commit, and a new sandbox starts from the saved state', async () => {
    const deltas: number[] = [];
    const sandbox = await create({ onCommit: (delta) => deltas.push(delta.records.length) });
    await sandbox.writeFile('notes/a.txt', 'saved', { parents: true });
    await sandbox.run(['probe', 'write', 'b.txt', 'from a run']);
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    const state = await sandbox.exportState();
    await sandbox.destroy();
    const restored = await create({ state });
    expect(await restored.readTextFile('notes/a.txt')).toBe('saved');
    expect((await restored.run(['probe', 'read', 'b.txt'])).stdout).toBe('from a run');
    await restored.destroy();
  });
});
