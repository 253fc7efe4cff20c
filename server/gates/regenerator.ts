// Who produces the next candidate after a failed attempt: a callback (library use), a
// command (`--regenerate CMD`: run with the workspace as its cwd and the prior failure in
// its environment and on stdin), or — when it lands — the agent executor.

import { spawn } from 'node:child_process';

export interface RegenerateContext {
  gateId: string;
  gateRunId: string;
  /** The attempt that will run next (2, 3, …). */
  nextAttempt: number;
  workspace: string;
  /** The failed attempt's summary: what the next candidate must fix. */
  priorFailure: string;
}

export type Regenerator = (context: RegenerateContext) => Promise<void>;

export class RegeneratorFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegeneratorFailed';
  }
}

/** A regenerator that runs `command` through sh -c (the operator's own command: trusted). */
export function commandRegenerator(command: string, timeoutMs = 600_000): Regenerator {
  return (context) =>
    new Promise((resolve, reject) => {
      const child = spawn('sh', ['-c', command], {
        cwd: context.workspace,
        stdio: ['pipe', 'inherit', 'inherit'],
        env: {
          ...process.env,
          AIRLOCK_GATE_ID: context.gateId,
          AIRLOCK_GATE_RUN_ID: context.gateRunId,
          AIRLOCK_GATE_NEXT_ATTEMPT: String(context.nextAttempt),
          AIRLOCK_GATE_PRIOR_FAILURE: context.priorFailure,
          AIRLOCK_GATE_WORKSPACE: context.workspace,
        },
        timeout: timeoutMs,
      });
      child.stdin.end(`${context.priorFailure}\n`);
      child.on('error', (error) => reject(new RegeneratorFailed(`--regenerate: cannot run: ${error.message}`)));
      child.on('close', (code, signal) => {
        if (code === 0) resolve();
        else reject(new RegeneratorFailed(`--regenerate exited ${code ?? signal}`));
      });
    });
}
