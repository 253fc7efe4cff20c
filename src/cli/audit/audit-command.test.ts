// `airlock run --audit` and `airlock audit verify|tail|query|repair|keygen`, through the
// CLI's own entry point, on logs written by real runs.

import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../main.js';
import { tailCommand } from './read.js';

let dir: string;
let log: string;
let out: string[];
let err: string[];

/** The event type in a line of text output (time, session, mark, type, fields). */
const typeOf = (line: string): string | undefined => /^\S+ \S+ [! ] (\S+)/.exec(line)?.[1];

async function cli(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  out = [];
  err = [];
  const status = await main(argv);
  return { status, stdout: out.join(''), stderr: err.join('') };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'airlock-audit-cli-'));
  process.env.AIRLOCK_AUDIT_KEY = join(dir, 'keys', 'audit.key');
  log = join(dir, 'audit.jsonl');
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (err.push(typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk)), true));
  expect((await cli('run', '--audit', log, '-c', 'echo hello; cat /nonexistent')).status).toBe(1);
  expect((await cli('run', '--audit', log, '--timeout', '300', '-c', 'while :; do :; done')).status).toBe(124);
});

afterAll(async () => {
  vi.restoreAllMocks();
  delete process.env.AIRLOCK_AUDIT_KEY;
  await rm(dir, { recursive: true, force: true });
});

describe('airlock run --audit', () => {
  it('writes both runs to one chain, with checkpoints signed by the default key (made on first use)', async () => {
    const result = await cli('audit', 'verify', '--schema', log);
    expect(result).toMatchObject({ status: 0 });
    expect(result.stdout).toMatch(/^.*audit\.jsonl: ok: \d+ lines \(n=0…\d+\) in 1 file; 2 signed checkpoints hold \(key airlock-audit@.*\)\n$/);
    expect(await readFile(process.env.AIRLOCK_AUDIT_KEY as string, 'utf8')).toMatch(/^PRIVATE\+KEY\+airlock-audit@/);
  });

  it('refuses a wrong option with a usage error', async () => {
    expect((await cli('run', '--audit-key', 'k', '-c', 'true')).status).toBe(2);
    expect(err.join('')).toContain('--audit-key needs --audit FILE');
    expect((await cli('audit', 'frobnicate')).status).toBe(2);
    expect((await cli('audit', 'query', log, '--since', 'yesterday-ish')).stderr).toContain('--since needs an ISO time or a duration');
  });
});

describe('airlock audit query and tail', () => {
  it('selects by type, session and time, as text or JSON', async () => {
    const ended = await cli('audit', 'query', log, '--type', 'run.ended', '--json');
    const events = ended.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; exitCode: number; sessionId: string; errorClass: string | null });
    expect(events.map((e) => [e.type, e.exitCode, e.errorClass])).toEqual([
      ['run.ended', 1, null],
      ['run.ended', 124, 'timeout'],
    ]);
    const session = events[1]?.sessionId as string;
    const theirs = await cli('audit', 'query', log, '--session', session, '--type', 'sandbox.*', '--type', 'limit.hit');
    // The shell loop makes system calls, so the kernel's deadline ends it (no hard kill).
    expect(theirs.stdout.trim().split('\n').map(typeOf)).toEqual(['sandbox.created', 'limit.hit', 'sandbox.destroyed']);
    expect(theirs.stdout).toContain(' ! limit.hit runId=1 limit=timeoutMs value=300');
    expect((await cli('audit', 'query', log, '--since', '1h', '--limit', '3')).stdout.trim().split('\n')).toHaveLength(3);
    expect((await cli('audit', 'query', log, '--until', '2000-01-01')).stdout).toBe('');
  });

  it('tail prints the last events, and -f follows new ones', async () => {
    const last = await cli('audit', 'tail', '-n', '2', log);
    expect(last.stdout.trim().split('\n').map(typeOf)).toEqual(['run.ended', 'sandbox.destroyed']);
    out = [];
    const controller = new AbortController();
    const following = tailCommand({ file: log, follow: true, lines: 0, json: true, filter: {} }, controller.signal);
    // The follower may print the new events before the run's command returns: out is not cleared here.
    expect((await cli('run', '--audit', log, '-c', 'true')).status).toBe(0);
    await vi.waitFor(() => expect(out.join('')).toContain('"type":"sandbox.destroyed"'), { timeout: 10_000 });
    controller.abort();
    expect(await following).toBe(0);
  });
});

describe('airlock audit verify and repair', () => {
  let copy: string;
  beforeEach(async () => {
    copy = join(dir, `copy-${Math.random().toString(36).slice(2)}.jsonl`);
    await writeFile(copy, await readFile(log));
    await writeFile(`${copy}.checkpoints`, await readFile(`${log}.checkpoints`));
  });

  it('names the first broken line and why', async () => {
    const lines = (await readFile(copy, 'utf8')).split('\n');
    lines[3] = (lines[3] as string).replace('"runId":1', '"runId":9');
    await writeFile(copy, lines.join('\n'));
    const result = await cli('audit', 'verify', copy, log);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(`${copy}: FAILED: ${copy}:4: the hash does not match the line's content: line n=3 was edited`);
    expect(result.stdout).toContain(`${log}: ok`);
  });

  it('catches a cut-off tail through the checkpoints, and a forged key through --key', async () => {
    const lines = (await readFile(copy, 'utf8')).split('\n');
    await writeFile(copy, lines.slice(0, -4).join('\n') + '\n');
    expect((await cli('audit', 'verify', copy)).stdout).toContain('the log was cut off');
    const other = join(dir, 'other.key');
    expect((await cli('audit', 'keygen', '--out', other, '--name', 'someone')).status).toBe(0);
    const result = await cli('audit', 'verify', '--key', out.join('').trim(), log);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('not signed by the given key');
  });

  it('repairs a torn last line with an event saying so, and refuses other damage', async () => {
    await appendFile(copy, '{"n":99,"prev":"ab');
    const torn = await cli('audit', 'verify', copy);
    expect(torn.status).toBe(1);
    expect(torn.stdout).toContain('torn line: 18 bytes without a newline');
    const repaired = await cli('audit', 'repair', copy);
    expect(repaired.status).toBe(0);
    expect(repaired.stdout).toMatch(/removed the torn line \d+ \(18 bytes, BLAKE3 [0-9a-f]{64}\); appended an audit.repaired event/);
    expect((await cli('audit', 'verify', copy)).status).toBe(0);
    expect((await cli('audit', 'query', copy, '--type', 'audit.repaired')).stdout).toContain('truncatedBytes=18');
    expect((await cli('audit', 'repair', copy)).stdout).toContain('nothing to repair');
    const lines = (await readFile(copy, 'utf8')).split('\n');
    lines.splice(2, 1);
    await writeFile(copy, lines.join('\n'));
    const refused = await cli('audit', 'repair', copy);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('cannot repair');
  });

  it('an appended run refuses a torn log until it is repaired', async () => {
    await appendFile(copy, '{"n":');
    const result = await cli('run', '--audit', copy, '-c', 'true');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`the last line is torn (5 bytes without a newline: a write was cut off); run 'airlock audit repair ${copy}'`);
  });
});
