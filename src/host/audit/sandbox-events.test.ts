// Audit events from real actions on a Node sandbox (never by calling the emitter): the
// session's life, runs, limits, commits and their refusal, extension calls the host refuses,
// network decisions; and the same session written through the file sink, whose chain then
// verifies.

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditEventOf, AuditEventType } from '../../protocol/audit/schema.js';
import { EXTENSION_LIMITS } from '../../protocol/limits.js';
import { validateAuditEvent } from '../../protocol/audit/validate.js';
import { Sandbox, drainWarmPool, type NodeSandboxOptions } from '../node/index.js';
import { verifyAuditLog } from './audit-log.js';
import { AuditFileSink } from './file-sink.js';
import { readEvents } from './event-reader.js';
import { blake3Hex } from './hash.js';

const wasmDir = fileURLToPath(new URL('../../../tests/wasm', import.meta.url));

/** A sandbox whose audit events are collected (and checked against the schema as they come). */
async function audited(options: NodeSandboxOptions = {}): Promise<{ sandbox: Sandbox; events: AuditEvent[] }> {
  const events: AuditEvent[] = [];
  const sandbox = await Sandbox.create({
    wasmDir,
    ...options,
    onAuditEvent: (event) => {
      const check = validateAuditEvent(JSON.parse(JSON.stringify(event)));
      if (!check.ok) throw new Error(`invalid event: ${check.error}`);
      events.push(event);
    },
  });
  return { sandbox, events };
}

function only<T extends AuditEventType>(events: AuditEvent[], type: T): Array<AuditEventOf<T>> {
  return events.filter((e) => e.type === type) as Array<AuditEventOf<T>>;
}

afterAll(() => drainWarmPool());

describe('a session', () => {
  it('is created, runs, commits and is destroyed, in order, with seq counting up', async () => {
    const { sandbox, events } = await audited({ allowedTools: ['probe'], limits: { fsBytes: 1 << 20 } });
    await sandbox.run(['probe', 'write', '/home/user/f', 'data']);
    await sandbox.writeFile('g.txt', 'x');
    await sandbox.destroy();
    expect(events.map((e) => e.type)).toEqual(['sandbox.created', 'run.started', 'persistence.committed', 'run.ended', 'persistence.committed', 'sandbox.destroyed']);
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set([sandbox.sessionId]));
    expect(events.every((e) => e.source === 'host' && e.v === 1)).toBe(true);
    expect(events[0]).toMatchObject({ allowedTools: ['probe'], forkedFrom: null, fromState: false, limits: { fsBytes: 1 << 20, timeoutMs: 30_000 } });
    expect(events[0]).not.toHaveProperty('limits.fileCount'); // unlimited: left out
    expect(events[2]).toMatchObject({ runId: 1, records: 2, deleted: 0 }); // the file and its directory
    expect(events[3]).toMatchObject({ runId: 1, exitCode: 0, errorClass: null, outputTruncated: false });
    // No file contents in any event.
    expect(JSON.stringify(events)).not.toContain('data"');
  });

  it('keeps a long command to 4 KiB with the hash of all of it', async () => {
    const { sandbox, events } = await audited();
    const long = `probe echo ${'é'.repeat(3000)}`;
    await sandbox.run(long);
    const [started] = only(events, 'run.started');
    expect(started).toMatchObject({ commandBytes: new TextEncoder().encode(long).length, commandTruncated: true, commandHash: blake3Hex(long), argv: false });
    expect(new TextEncoder().encode(started?.command).length).toBeLessThanOrEqual(4096);
    expect(long.startsWith(started?.command ?? '?')).toBe(true);
    await sandbox.destroy();
  });

  it('forks, snapshots and restores', async () => {
    const { sandbox, events } = await audited();
    const id = await sandbox.snapshot();
    await sandbox.restore(id);
    const child = await sandbox.fork();
    await child.destroy();
    await sandbox.destroy();
    expect(only(events, 'sandbox.restored')).toMatchObject([{ snapshotId: id, inPlace: true }]);
    expect(only(events, 'sandbox.forked')).toMatchObject([{ sessionId: sandbox.sessionId, child: child.sessionId }]);
    const created = only(events, 'sandbox.created');
    expect(created.map((e) => e.sessionId)).toEqual([sandbox.sessionId, child.sessionId]);
    expect(created[1]).toMatchObject({ forkedFrom: sandbox.sessionId, fromState: true });
    expect(only(events, 'sandbox.destroyed').map((e) => e.sessionId)).toEqual([child.sessionId, sandbox.sessionId]);
  });
});

describe('limits and kills', () => {
  it('a run past its deadline is hard-killed, the worker restarted, the limit named', async () => {
    const { sandbox, events } = await audited();
    const result = await sandbox.run(['probe', 'spin'], { timeoutMs: 300 });
    expect(result.errorClass).toBe('timeout');
    await sandbox.destroy();
    expect(only(events, 'sandbox.hard_killed')).toMatchObject([{ runId: 1, reason: 'timeout', timeoutMs: 300 }]);
    expect(only(events, 'sandbox.worker_restarted')).toMatchObject([{ runId: 1, reason: expect.stringContaining('hard-killed') }]);
    expect(only(events, 'limit.hit')).toMatchObject([{ runId: 1, limit: 'timeoutMs', value: 300 }]);
    expect(only(events, 'run.ended')).toMatchObject([{ runId: 1, exitCode: 124, errorClass: 'timeout' }]);
  });

  it('a run that ignores Ctrl-C is hard-killed as cancelled', async () => {
    const { sandbox, events } = await audited();
    // A first run compiles probe and readies its instances: the interrupt below must find the
    // run spinning, not still starting (then it ends without a hard kill) on a loaded machine.
    await sandbox.run(['probe', 'echo', 'ready']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    await sandbox.run(['probe', 'spin'], { signal: controller.signal, timeoutMs: 60_000 });
    await sandbox.destroy();
    expect(only(events, 'sandbox.hard_killed')).toMatchObject([{ reason: 'cancelled' }]);
  });

  it('output past its limit, a command past commandBytes, a write past fsBytes', async () => {
    const { sandbox, events } = await audited({ limits: { stdoutBytes: 1000, commandBytes: 100, fsBytes: 64 } });
    await sandbox.run(['probe', 'emit', '5000']);
    await expect(sandbox.run(`probe echo ${'x'.repeat(200)}`)).rejects.toMatchObject({ name: 'LimitError' });
    await sandbox.run(['probe', 'write', '/home/user/big', 'y'.repeat(100)]);
    await sandbox.destroy();
    expect(only(events, 'limit.hit').map((e) => [e.runId, e.limit, e.value])).toEqual([
      [1, 'stdoutBytes', 1000],
      [null, 'commandBytes', 100],
      [2, 'fsBytes', 64],
    ]);
    expect(only(events, 'run.ended')[0]).toMatchObject({ outputTruncated: true });
  });

  it('a saved session over the limits is rejected', async () => {
    const source = await Sandbox.create({ wasmDir });
    await source.writeFile('big', 'z'.repeat(5000));
    const state = await source.exportState();
    await source.destroy();
    const events: AuditEvent[] = [];
    await expect(Sandbox.create({ wasmDir, state, limits: { fsBytes: 1000 }, onAuditEvent: (e) => events.push(e) })).rejects.toMatchObject({ name: 'LimitError' });
    expect(events.map((e) => e.type)).toEqual(['sandbox.created', 'persistence.rejected', 'sandbox.destroyed']);
    expect(events[1]).toMatchObject({ limit: 'fsBytes', reason: expect.stringContaining('the saved session') });
  });
});

describe('refusals the kernel reports (source sandbox-reported)', () => {
  it('a tool outside the allowlist (through the shell, the real tools)', async () => {
    const events: AuditEvent[] = [];
    const sandbox = await Sandbox.create({ allowedTools: ['ls'], onAuditEvent: (e) => events.push(e) });
    expect((await sandbox.run('cat /etc/hostname; cat /etc/hostname')).exitCode).toBe(126);
    await sandbox.destroy();
    expect(only(events, 'tool.refused')).toMatchObject([{ runId: 1, tool: 'cat', source: 'sandbox-reported', count: 2 }]);
  });

  it('a read-only path, a write past fsBytes', async () => {
    const { sandbox, events } = await audited({ limits: { fsBytes: 64 } });
    expect((await sandbox.run(['probe', 'write', '/etc/passwd', 'x'])).stdout).toMatch(/^err /);
    expect((await sandbox.run(['probe', 'write', '/home/user/big', 'y'.repeat(100)])).stdout).toMatch(/^err /);
    await sandbox.destroy();
    const reported = events.filter((e) => e.source === 'sandbox-reported');
    expect(reported).toMatchObject([
      { type: 'write.refused', runId: 1, errno: 'EROFS', path: 'etc/passwd', limit: null },
      { type: 'write.refused', runId: 2, errno: 'ENOSPC', path: '/home/user/big', limit: 'fsBytes' },
    ]);
    // A refusal's event comes before the end of its run.
    const ended = events.findIndex((e) => e.type === 'run.ended' && e.runId === 1);
    expect(events.findIndex((e) => e.type === 'write.refused' && e.errno === 'EROFS')).toBeLessThan(ended);
  });

  // A million refusals take the kernel's error path a million times (minutes on a loaded machine).
  it('a flood of a million refused writes becomes a few counted events, the count exact', { timeout: 1_800_000 }, async () => {
    const { sandbox, events } = await audited();
    const result = await sandbox.run(['probe', 'write-many', '1000000', '/etc/flood'], { timeoutMs: 1_800_000 });
    expect(result.stdout).toBe('failed 1000000\n');
    await sandbox.destroy();
    const floods = only(events, 'write.refused');
    expect(floods.reduce((sum, e) => sum + (e.count ?? 1), 0)).toBe(1_000_000);
    expect(floods.every((e) => e.path === 'etc/flood' && e.errno === 'EROFS' && e.source === 'sandbox-reported')).toBe(true);
    // Two reports a second at most from the kernel, coalesced again by the host.
    expect(floods.length).toBeLessThan(10 + result.durationMs / 250);
  });

  it('a flood with ever new subjects is counted by kind, still exactly', async () => {
    const { sandbox, events } = await audited();
    expect((await sandbox.run(['probe', 'write-many', '5000', '/etc/'])).stdout).toBe('failed 5000\n');
    await sandbox.destroy();
    const refused = only(events, 'write.refused');
    const coalesced = only(events, 'audit.coalesced');
    const total = refused.reduce((sum, e) => sum + (e.count ?? 1), 0) + coalesced.reduce((sum, e) => sum + (e.types['write.refused'] ?? 0), 0);
    expect(total).toBe(5000);
    // Past 1,000 subjects per report (kernel) and per second (host) they are counted, not listed.
    expect(refused.length + coalesced.length).toBeLessThan(5000);
    expect(refused.some((e) => e.path === '(other paths)') || coalesced.length > 0).toBe(true);
  });
});

describe('extension calls the host refuses', () => {
  it('a call past maxConcurrentCalls, made by the sandbox’s own shell, is refused by the host', async () => {
    const { maxConcurrentCalls } = EXTENSION_LIMITS;
    const events: AuditEvent[] = [];
    let started = 0;
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const sandbox = await Sandbox.create({
      // Each background call is a subshell and the extension's process.
      limits: { processes: 4 * maxConcurrentCalls },
      extensions: [
        {
          name: 'hold',
          description: 'hold: answers when released',
          timeoutMs: 600_000,
          handler: async () => {
            // Were one call too many let through, the handlers would wait forever: release them.
            if (++started > maxConcurrentCalls) release();
            await released;
            return { stdout: '' };
          },
        },
      ],
      onAuditEvent: (event) => {
        events.push(event);
        if (event.type === 'extension.refused') release();
      },
    });
    const result = await sandbox.run(`for i in $(seq ${maxConcurrentCalls + 1}); do hold & done; wait`);
    await sandbox.destroy();
    expect(result.stderr).toBe(`airlock: hold: ${maxConcurrentCalls} extension calls are running already (maxConcurrentCalls)\n`);
    expect(started).toBe(maxConcurrentCalls);
    expect(only(events, 'extension.refused')).toMatchObject([{ runId: 1, name: 'hold', reason: expect.stringContaining('maxConcurrentCalls'), source: 'host', sessionId: sandbox.sessionId }]);
    expect(only(events, 'extension.called')).toHaveLength(maxConcurrentCalls);
    // Before the end of its run.
    expect(events.findIndex((e) => e.type === 'extension.refused')).toBeLessThan(events.findIndex((e) => e.type === 'run.ended'));
  });
});

describe('network decisions', () => {
  let server: Server;
  let base: string;
  let port: number;

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('records each hop allowed or refused, with the reason, and no credentials', async () => {
    const { sandbox, events } = await audited({ network: { allowedHosts: [`127.0.0.1:${port}`] } });
    expect((await sandbox.run(['probe', 'http', 'GET', `${base}/x`])).exitCode).toBe(0);
    expect((await sandbox.run(['probe', 'http', 'GET', `http://user:hunter2@127.0.0.1:${port + 1}/y`])).exitCode).toBe(7);
    await sandbox.destroy();
    const decisions = only(events, 'network.decision');
    expect(decisions).toMatchObject([
      { runId: 1, enforcer: 'host', method: 'GET', url: `${base}/x`, host: '127.0.0.1', allowed: true, reason: null },
      { runId: 2, enforcer: 'host', allowed: false, url: `http://127.0.0.1:${port + 1}/y`, reason: expect.stringMatching(/not (in network.allowedHosts|allowed)/) },
    ]);
    // The URL's credentials stay out of the decision (the command itself is the caller's own text).
    expect(JSON.stringify(decisions)).not.toContain('hunter2');
  });
});

describe('secrets', () => {
  let server: Server;
  let port: number;
  const SECRET = 'tok_s3cr3t-0123456789abcdef';

  beforeAll(async () => {
    // Echoes the Authorization header it got (the host scrubs the echo for the sandbox).
    server = createServer((req, res) => res.end(`auth: ${req.headers.authorization ?? ''}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a secret the host injects appears in no event, nor do its placeholder’s uses leak it', async () => {
    const { sandbox, events } = await audited({
      network: { allowedHosts: [`127.0.0.1:${port}`], secrets: [{ name: 'TOKEN', value: SECRET, hosts: ['127.0.0.1'], header: 'Authorization', template: 'Bearer ${TOKEN}' }] },
    });
    const result = await sandbox.run(['probe', 'http', 'GET', `http://127.0.0.1:${port}/x?token=airlock-secret:TOKEN`]);
    expect(result.exitCode).toBe(0);
    await sandbox.run(['probe', 'env']);
    await sandbox.destroy();
    expect(only(events, 'network.decision')).toMatchObject([{ allowed: true }]);
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });
});

describe('the file sink', () => {
  it('a disk that falls behind loses events only counted: audit.dropped says how many, by type', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'airlock-sink-'));
    try {
      const path = join(dir, 'audit.jsonl');
      // A backlog of one byte: after each event it chains, the sink counts the others as
      // lost until the disk has caught up.
      const sink = await AuditFileSink.open(path, { maxBacklogBytes: 1 });
      const seen: AuditEvent[] = [];
      const sandbox = await Sandbox.create({ wasmDir, onAuditEvent: (event) => (seen.push(event), sink.listener(event)) });
      for (let i = 0; i < 5; i++) await sandbox.run(['probe', 'echo', String(i)]);
      await sandbox.destroy();
      await sink.close();
      expect((await verifyAuditLog(path, { schema: true })).ok).toBe(true);
      const logged: AuditEvent[] = [];
      for await (const { event } of readEvents([path])) logged.push(event);
      const dropped = logged.filter((e) => e.type === 'audit.dropped') as Array<AuditEventOf<'audit.dropped'>>;
      const kept = logged.filter((e) => e.sessionId === sandbox.sessionId);
      const lost = dropped.reduce((sum, e) => sum + e.lost, 0);
      expect(lost).toBeGreaterThan(0);
      expect(kept.length + lost).toBe(seen.length);
      expect(dropped[0]?.reason).toContain('fell behind');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('writes a session as a chain that verifies, one event per line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'airlock-sink-'));
    try {
      const path = join(dir, 'audit.jsonl');
      const sink = await AuditFileSink.open(path);
      const sandbox = await Sandbox.create({ wasmDir, onAuditEvent: sink.listener });
      await sandbox.run(['probe', 'echo', 'hi']);
      await sandbox.run(['probe', 'spin'], { timeoutMs: 200 });
      await sandbox.destroy();
      await sink.close();
      const report = await verifyAuditLog(path, { schema: true });
      expect(report.problem).toBeUndefined();
      expect(report.lines).toBeGreaterThanOrEqual(10);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
