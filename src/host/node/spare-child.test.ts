// The warm pool's ready spares (spare-child.ts): a fork's next child has had its parent's
// init already, a spare made for one configuration never serves another, and a spare being
// started while the pool drains or its sandbox goes is ended, not left behind.

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, type KernelInit } from '../../protocol/messages.js';
import { resolveLimits } from '../../protocol/limits.js';
import { Sandbox, drainWarmPool } from './index.js';
import { kernelBundlePath } from './kernel-bundle.js';
import { ChildPool } from './spare-child.js';
import { CHILD_V8_FLAGS, childCommand, type ChildSpec } from './child-process.js';

const wasmDir = fileURLToPath(new URL('../../../tests/wasm', import.meta.url));
const manifest = JSON.parse(readFileSync(join(wasmDir, 'manifest.json'), 'utf8')) as { modules: Array<{ name: string; commands: string[] }> };
const limits = resolveLimits(undefined);

afterAll(() => drainWarmPool());

function initWith(env: Record<string, string>): KernelInit {
  return { protocolVersion: PROTOCOL_VERSION, modules: manifest.modules.map((m) => ({ name: m.name, tools: m.commands })), limits, allowedTools: null, hostname: 'sandbox', env };
}

async function spec(): Promise<ChildSpec> {
  return { bundle: await kernelBundlePath(), wasmDir, messageBytes: limits.messageBytes, isolateNetwork: true };
}

/** This process's sandbox children still running (the command line names the kernel bundle). */
function sandboxChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== process.pid || state === 'Z') continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('kernel.mjs')) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Waits (no bound of its own: the test's timeout is it) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('sandbox children', () => {
  it("start with the child's V8 flags (semi-space, tier-up), as options of node before its script", async () => {
    const childSpec = await spec();
    const { args } = childCommand(childSpec);
    const script = args.indexOf(childSpec.bundle);
    expect(script).toBeGreaterThan(0);
    for (const flag of CHILD_V8_FLAGS) expect(args.indexOf(flag), flag).toBeGreaterThan(-1);
    for (const flag of CHILD_V8_FLAGS) expect(args.indexOf(flag), flag).toBeLessThan(script);
  });
});

describe('ready spares', () => {
  it('keeps a spare that has had a fork\'s init for the next fork of that configuration only', async () => {
    const pool = new ChildPool();
    const options = { messageBytes: limits.messageBytes, init: initWith({ WHO: 'a' }), keepReady: true };
    const first = pool.connect(await spec(), options);
    expect(first.initialised).toBeUndefined();
    first.settled?.();
    await nextTurn();
    // A plain spare for creates and a ready one for this configuration.
    expect(pool.size).toBe(2);
    const other = pool.connect(await spec(), { ...options, init: initWith({ WHO: 'b' }) });
    expect(other.initialised).toBeUndefined();
    const second = pool.connect(await spec(), options);
    expect(await second.initialised).toEqual({ tools: expect.arrayContaining(['probe']) });
    for (const connection of [first, other, second]) connection.terminate();
    pool.drain();
    await until(() => sandboxChildren().length === 0);
  });

  it('a fork of a fork through ready spares keeps its configuration and files', async () => {
    const sandbox = await Sandbox.create({ wasmDir, env: { WHO: 'parent' } });
    const other = await Sandbox.create({ wasmDir, env: { WHO: 'other' } });
    await sandbox.writeFile('/tmp/mark', 'parent');
    const child = await sandbox.fork();
    const otherFork = await other.fork();
    const grandchild = await child.fork();
    for (const copy of [child, grandchild]) {
      expect((await copy.run(['probe', 'env'])).stdout).toContain('WHO=parent\n');
      expect(await copy.readTextFile('/tmp/mark')).toBe('parent');
    }
    expect((await otherFork.run(['probe', 'env'])).stdout).toContain('WHO=other\n');
    await Promise.all([sandbox, other, child, otherFork, grandchild].map((s) => s.destroy()));
    drainWarmPool();
    await until(() => sandboxChildren().length === 0);
  });

  it('a refill asked for before the pool drains starts no child', async () => {
    const pool = new ChildPool();
    const connection = pool.connect(await spec(), { messageBytes: limits.messageBytes, init: initWith({}), keepReady: true });
    connection.settled?.();
    pool.drain();
    await nextTurn();
    expect(pool.size).toBe(0);
    connection.terminate();
    await until(() => sandboxChildren().length === 0);
  });

  it('a ready spare still starting when the pool drains, or when its last sandbox goes, is ended', async () => {
    const pool = new ChildPool();
    const options = { messageBytes: limits.messageBytes, init: initWith({ WHO: 'gone' }), keepReady: true };
    const connection = pool.connect(await spec(), options);
    connection.settled?.();
    await nextTurn();
    expect(pool.size).toBe(2);
    // The sandbox goes while its ready spare is starting (its init still in flight).
    connection.terminate();
    await nextTurn();
    expect(pool.size).toBe(1);
    // The plain spare, still starting too, goes with the drain.
    pool.drain();
    expect(pool.size).toBe(0);
    await until(() => sandboxChildren().length === 0);
  });
});
