// The tests signal: the test phase passed when it exited 0 and no report it left counts a
// failure. Reports are read from the copy-out (JUnit XML, jest/vitest JSON) and from the
// phase's output (TAP, pytest, unittest summaries).

import { join } from 'node:path';
import type { SandboxRun } from '../../backends/contract.js';
import type { GateSignal } from './signal.js';
import { copyOutFiles, evidencePath, phaseNamed, readCapped } from './run-files.js';
import { parseJestJson, parseJunit, parsePytest, parseTap, parseUnittest, type TestCounts } from './test-reports.js';

export function collectTestsSignal(run: SandboxRun, phaseNames: string[] = ['test']): GateSignal {
  const phase = phaseNamed(run, phaseNames);
  if (phase === undefined) {
    const reason = run.timedOut ? 'the run timed out before the tests' : run.killedByOom ? 'the run ran out of memory before the tests' : run.phases.some((p) => p.exitCode !== 0) ? 'an earlier phase failed; the tests did not run' : 'no test phase ran';
    return { kind: 'tests', passed: false, retryable: !run.timedOut && !run.killedByOom, summary: reason, details: { exitCode: run.exitCode }, evidence: [] };
  }
  const evidence = [evidencePath(run, phase.stdoutPath), evidencePath(run, phase.stderrPath)];
  let counts: TestCounts | null = null;
  for (const file of copyOutFiles(run)) {
    const text = file.endsWith('.xml') ? readCapped(join(run.copyOutRoot, file)) : file.endsWith('.json') ? readCapped(join(run.copyOutRoot, file)) : '';
    counts = file.endsWith('.xml') ? parseJunit(text) : file.endsWith('.json') ? parseJestJson(text) : null;
    if (counts !== null) {
      evidence.push(evidencePath(run, join(run.copyOutRoot, file)));
      break;
    }
  }
  const output = `${readCapped(phase.stdoutPath)}\n${readCapped(phase.stderrPath)}`;
  counts ??= parseTap(readCapped(phase.stdoutPath)) ?? parsePytest(output) ?? parseUnittest(output);
  const passed = phase.exitCode === 0 && (counts === null || counts.failed === 0) && !run.timedOut && !run.killedByOom;
  const what = counts === null ? `exit ${phase.exitCode}` : `${counts.failed} of ${counts.total} failed (${counts.format})`;
  const first = counts?.failures[0];
  let summary = passed ? (counts === null ? 'exit 0' : `${counts.total} passed (${counts.format})`) : `${what}${first === undefined ? '' : `; first: ${first}`}`;
  if (run.timedOut) summary = `timed out after ${run.spec.timeBudgetSeconds} s`;
  if (run.killedByOom) summary = `killed: out of memory (memoryLimitMiB ${run.spec.memoryLimitMiB})`;
  const details: GateSignal['details'] = { phase: phase.name, exitCode: phase.exitCode, format: counts?.format ?? 'exit-status' };
  if (counts !== null) Object.assign(details, { total: counts.total, failed: counts.failed, skipped: counts.skipped, firstFailure: first ?? '' });
  return { kind: 'tests', passed, retryable: !run.timedOut && !run.killedByOom, summary, details, evidence };
}
