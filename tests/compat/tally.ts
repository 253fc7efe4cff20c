// Counts and prints the verdicts of a command-line compat run (tests/compat/cli.ts,
// scripts/shell-compat-native.ts): every failure with its difference, a known failure
// that now passes, and the totals.

import type { LoadedCase } from './cases.js';
import { compare } from './compare.js';
import { MissingRecordingError } from './recording.js';
import type { Outcome } from './reference.js';

export class Tally {
  passed = 0;
  failed = 0;
  known = 0;
  skipped = 0;

  constructor(private readonly verbose: boolean) {}

  /** Compares `actual` with the reference result `expected()` gives (a missing recording is a failure). */
  async record(c: LoadedCase, expected: () => Promise<Outcome>, actual: Outcome): Promise<void> {
    let verdict;
    try {
      verdict = compare(c, await expected(), actual);
    } catch (error) {
      if (!(error instanceof MissingRecordingError)) throw error;
      this.failed++;
      console.log(`FAIL ${error.message}\n`);
      return;
    }
    if (verdict.pass) {
      this.passed++;
      if (c.known_failure) console.log(`FIXED? ${c.id} passes but is marked known_failure`);
      if (this.verbose) console.log(`ok   ${c.id}`);
    } else if (c.known_failure) {
      this.known++;
      if (this.verbose) console.log(`known ${c.id}: ${c.known_failure}\n${verdict.detail}\n`);
    } else {
      this.failed++;
      console.log(`FAIL ${c.id}\n${verdict.detail}\n`);
    }
  }

  summary(): string {
    const total = this.passed + this.failed + this.known;
    const rate = total === 0 ? 0 : (100 * this.passed) / total;
    return `${this.passed} passed, ${this.failed} failed, ${this.known} known failures, ${this.skipped} skipped (${rate.toFixed(1)}% pass)`;
  }
}
