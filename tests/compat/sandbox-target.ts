// The acceptance target: each case runs in a fresh sandbox (Node host API, hardened child
// process) holding the case's files in /home/user, with the same environment the
// reference gets, through the sandbox's own shell.

import { Sandbox, drainWarmPool, type NodeSandboxOptions } from '../../src/host/node/index.js';
import type { CompatCase } from './cases.js';
import { caseEnv, SANDBOX_HOME, type Outcome } from './reference.js';

/** `pythonMode`: which of Python's modes the sandboxes use (default: its own worker). */
export function createSandboxRunner(pythonMode: NodeSandboxOptions['pythonMode'] = 'worker'): (c: CompatCase) => Promise<Outcome> {
  return async (c: CompatCase): Promise<Outcome> => {
    const sandbox = await Sandbox.create({ files: c.files, pythonMode });
    try {
      const result = await sandbox.run(c.script, {
        env: caseEnv(SANDBOX_HOME, '/usr/local/bin:/usr/bin:/bin'),
        stdin: c.stdin,
        // Python's first start in a fresh sandbox compiles Pyodide (seconds on a loaded machine).
        timeoutMs: c.timeout ?? ((c as { suite?: string }).suite === 'python' ? 60_000 : 10_000),
      });
      return {
        stdout: Buffer.from(result.stdoutBytes),
        stderr: Buffer.from(result.stderrBytes),
        status: result.exitCode,
        timedOut: result.errorClass === 'timeout',
      };
    } finally {
      await sandbox.destroy();
    }
  };
}

export { drainWarmPool };
