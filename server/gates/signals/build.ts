// The build signal: the build phase's exit status, its error lines and the tail of its log.

import type { SandboxRun } from '../../backends/contract.js';
import type { GateSignal } from './signal.js';
import { evidencePath, phaseNamed, readCapped } from './run-files.js';

const ERROR_LINE = /(^|\b)(error|Error|ERROR|fatal|FAILED|undefined reference|cannot find)(\b|:)/;

export function collectBuildSignal(run: SandboxRun, phaseNames: string[] = ['build', 'install']): GateSignal {
  const phases = run.phases.filter((phase) => phaseNames.includes(phase.name));
  const phase = phases.find((entry) => entry.exitCode !== 0) ?? phases.at(-1) ?? phaseNamed(run, phaseNames);
  if (phase === undefined) {
    const reason = run.timedOut ? 'the run timed out before the build' : run.killedByOom ? 'the run ran out of memory before the build' : 'no build phase ran';
    return { kind: 'build', passed: false, retryable: !run.timedOut && !run.killedByOom, summary: reason, details: { exitCode: run.exitCode }, evidence: [] };
  }
  const log = `${readCapped(phase.stdoutPath)}\n${readCapped(phase.stderrPath)}`;
  const lines = log.split('\n');
  const errors = lines.filter((line) => ERROR_LINE.test(line)).slice(0, 10).map((line) => line.trim().slice(0, 300));
  const tail = lines.filter((line) => line.trim() !== '').slice(-20).join('\n').slice(-2000);
  const passed = phase.exitCode === 0;
  return {
    kind: 'build',
    passed,
    retryable: !run.timedOut && !run.killedByOom,
    summary: passed ? `${phase.name} exited 0` : `${phase.name} exited ${phase.exitCode}${errors[0] === undefined ? '' : `: ${errors[0]}`}`,
    details: { phase: phase.name, exitCode: phase.exitCode, errorLines: errors.length, firstError: errors[0] ?? '', logTail: tail },
    evidence: [evidencePath(run, phase.stdoutPath), evidencePath(run, phase.stderrPath)],
  };
}
