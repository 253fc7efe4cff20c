import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AttemptLedger, LedgerCorrupted, readLedger } from './ledger.js';

const entry = (passed: boolean, prior: string | null) => ({
  backend: 'wasm', sandboxRunId: 'r', specHash: 'h', passed, retryable: !passed, summary: passed ? 'passed' : 'tests: 1 of 2 failed',
  signals: [passed ? 'tests:passed' : 'tests:failed: 1 of 2 failed'], failureSummary: passed ? null : 'tests: 1 of 2 failed',
  priorFailureSummary: prior, cost: { vmSeconds: 1.5, bytesIn: 10, bytesOut: 20 },
});

describe('AttemptLedger', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-ledger-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('appends attempts on the audit chain and reads them back verified', async () => {
    const ledger = await AttemptLedger.create(dir, 'tests', 'run-1');
    const first = await ledger.record(entry(false, null));
    const second = await ledger.record(entry(true, first.failureSummary));
    await ledger.close();
    const contents = await readLedger(ledger.path);
    expect(contents.attempts.map((a) => [a.attempt, a.passed])).toEqual([[1, false], [2, true]]);
    expect(first.attemptId).not.toBe(second.attemptId);
    expect(contents.attempts[1]?.priorFailureSummary).toBe('tests: 1 of 2 failed');
    expect(contents.attempts[0]?.cost).toEqual({ vmSeconds: 1.5, bytesIn: 10, bytesOut: 20 });
    // Line 1 is the chain's start; each attempt is one chained line.
    expect(contents.lines).toBe(3);
  });

  it('refuses to extend a ledger whose line was edited, naming the file and line', async () => {
    const ledger = await AttemptLedger.create(dir, 'tests', 'run-2');
    await ledger.record(entry(false, null));
    const text = readFileSync(ledger.path, 'utf8');
    writeFileSync(ledger.path, text.replace('1 of 2 failed', '0 of 2 failed'));
    await expect(ledger.record(entry(true, null))).rejects.toThrow(LedgerCorrupted);
    await expect(readLedger(ledger.path)).rejects.toThrow(/attempts\.jsonl:2: /);
    await ledger.close();
  });

  it('refuses out-of-order lines', async () => {
    const ledger = await AttemptLedger.create(dir, 'tests', 'run-3');
    await ledger.record(entry(false, null));
    await ledger.record(entry(false, 'x'));
    await ledger.close();
    const lines = readFileSync(ledger.path, 'utf8').split('\n');
    writeFileSync(ledger.path, [lines[0], lines[2], lines[1], ''].join('\n'));
    await expect(readLedger(ledger.path)).rejects.toThrow(LedgerCorrupted);
  });

  it('a gate run has one ledger', async () => {
    const ledger = await AttemptLedger.create(dir, 'tests', 'run-4');
    await ledger.close();
    await expect(AttemptLedger.create(dir, 'tests', 'run-4')).rejects.toThrow(/already exists/);
  });
});
