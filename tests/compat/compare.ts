// Compares our outcome with the oracle's and describes the difference for a reader.

import type { CompatCase } from './cases.js';
import type { Outcome } from './reference.js';

export interface Verdict {
  pass: boolean;
  detail: string;
}

export function compare(c: CompatCase, expected: Outcome, actual: Outcome): Verdict {
  const problems: string[] = [];
  if (actual.timedOut) problems.push('ours timed out');
  if (expected.timedOut) problems.push('the reference timed out');
  if (expected.status !== actual.status) problems.push(`exit status: expected ${expected.status}, got ${actual.status}`);
  if (!expected.stdout.equals(actual.stdout)) problems.push(`stdout differs:\n${showDiff(expected.stdout, actual.stdout)}`);
  if (c.compare_stderr && !expected.stderr.equals(actual.stderr)) problems.push(`stderr differs:\n${showDiff(expected.stderr, actual.stderr)}`);
  if (problems.length > 0 && actual.stderr.length > 0 && !c.compare_stderr) {
    problems.push(`our stderr: ${JSON.stringify(actual.stderr.toString('utf8').slice(0, 400))}`);
  }
  return { pass: problems.length === 0, detail: problems.join('\n') };
}

function showDiff(expected: Buffer, actual: Buffer): string {
  const e = expected.toString('utf8').split('\n');
  const a = actual.toString('utf8').split('\n');
  const lines: string[] = [];
  for (let i = 0; i < Math.max(e.length, a.length) && lines.length < 12; i++) {
    if (e[i] !== a[i]) lines.push(`  line ${i + 1}: expected ${JSON.stringify(e[i] ?? '<none>')}, got ${JSON.stringify(a[i] ?? '<none>')}`);
  }
  return lines.join('\n');
}
