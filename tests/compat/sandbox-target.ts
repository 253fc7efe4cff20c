// The acceptance target: the cases run in sandboxes (Node host API, hardened child
// process) through the sandbox's own shell, with the same environment the reference got
// and the case's files in /home/user.
//
// One sandbox per case file, not per case: starting a child and compiling the tools costs
// more than most cases (measured on jq-cli: 37 cases in 40 s with a sandbox each, 10 s in
// one). Before each case the sandbox is restored to the snapshot taken when it was new,
// which ends every process (background jobs included) and brings back its files and shell
// state, so a case sees what a fresh sandbox would; the files of a suite run in parallel.
// What a restore does not reset is the child process itself (its JIT, its stack), so a case
// runs after the cases before it in its file, always in the same order.

import { Sandbox, drainWarmPool, type NodeSandboxOptions } from '../../src/host/node/index.js';
import { kernelBundlePath } from '../../src/host/node/kernel-bundle.js';
import { pythonSnapshotReady } from '../../src/host/python/node-snapshot.js';
import type { LoadedCase } from './cases.js';
import { caseEnv, SANDBOX_HOME, type Outcome } from './reference.js';

export interface SandboxRunOptions {
  /** Sandboxes (case files) running at the same time. */
  parallel?: number;
  /** Which of Python's modes the sandboxes use (default: its own worker). */
  pythonMode?: NodeSandboxOptions['pythonMode'];
  /** Where the tool modules come from (default: public/wasm). */
  wasmDir?: string;
  /** Called as each case finishes. */
  onOutcome?: (c: LoadedCase, outcome: Outcome) => void;
}

export const DEFAULT_PARALLEL = 3;

/**
 * Only a net for a case that hangs: a case that takes 1 s on a quiet machine took more than
 * 10 s at a load average of 30 on 2 cores, and Python's first start in a sandbox loads
 * Pyodide (seconds).
 */
function timeoutOf(c: LoadedCase): number {
  return c.timeout ?? 60_000;
}

/** What a case that could not run at all reports: the reason, as its stderr. */
function broken(error: unknown): Outcome {
  const reason = error instanceof Error ? error.message : String(error);
  return { stdout: Buffer.alloc(0), stderr: Buffer.from(`compat runner: the sandbox failed: ${reason}\n`), status: -1, timedOut: false };
}

class FileSandbox {
  private sandbox: Sandbox | undefined;
  private fresh = 0;

  constructor(private readonly options: SandboxRunOptions) {}

  private async ready(): Promise<Sandbox> {
    if (this.sandbox === undefined) {
      this.sandbox = await Sandbox.create({ pythonMode: this.options.pythonMode, wasmDir: this.options.wasmDir });
      this.fresh = await this.sandbox.snapshot();
    } else {
      await this.sandbox.restore(this.fresh);
    }
    return this.sandbox;
  }

  async run(c: LoadedCase): Promise<Outcome> {
    try {
      const sandbox = await this.ready();
      for (const [path, content] of Object.entries(c.files ?? {})) await sandbox.writeFile(path, content, { parents: true });
      const result = await sandbox.run(c.script, { env: caseEnv(SANDBOX_HOME, '/usr/local/bin:/usr/bin:/bin'), stdin: c.stdin, timeoutMs: timeoutOf(c) });
      return {
        stdout: Buffer.from(result.stdoutBytes),
        stderr: Buffer.from(result.stderrBytes),
        status: result.exitCode,
        timedOut: result.errorClass === 'timeout',
      };
    } catch (error) {
      // The next case starts from a new sandbox.
      await this.close();
      return broken(error);
    }
  }

  async close(): Promise<void> {
    const sandbox = this.sandbox;
    this.sandbox = undefined;
    await sandbox?.destroy();
  }
}

/**
 * Runs `cases` in sandboxes, one per case file, `parallel` files at a time (the costliest
 * files first, so the last ones to finish are short). Resolves with each case's outcome by id.
 */
export async function runInSandboxes(cases: LoadedCase[], options: SandboxRunOptions = {}): Promise<Map<string, Outcome>> {
  const byFile = new Map<string, LoadedCase[]>();
  for (const c of cases) {
    const key = `${c.suite}/${c.file}`;
    byFile.set(key, [...(byFile.get(key) ?? []), c]);
  }
  const cost = (group: LoadedCase[]): number => group.reduce((sum, c) => sum + (c.suite === 'python' ? 10 : 1), 0);
  const queue = [...byFile.values()].sort((a, b) => cost(b) - cost(a));
  // A sandbox started before Python's memory snapshot exists boots every interpreter cold
  // (seconds each): files that run python3 wait for it while the others go ahead.
  const usesPython = (group: LoadedCase[]): boolean => group.some((c) => c.script.includes('python'));
  let snapshotReady = !queue.some(usesPython);
  const snapshot = snapshotReady ? Promise.resolve() : kernelBundlePath().then(pythonSnapshotReady).catch(() => undefined);
  const take = async (): Promise<LoadedCase[] | undefined> => {
    const index = queue.findIndex((group) => snapshotReady || !usesPython(group));
    if (index >= 0) return queue.splice(index, 1)[0];
    if (queue.length === 0) return undefined;
    await snapshot;
    snapshotReady = true;
    return queue.shift();
  };
  const outcomes = new Map<string, Outcome>();
  const worker = async (): Promise<void> => {
    for (let group = await take(); group !== undefined; group = await take()) {
      const sandbox = new FileSandbox(options);
      try {
        for (const c of group) {
          const outcome = await sandbox.run(c);
          outcomes.set(c.id, outcome);
          options.onOutcome?.(c, outcome);
        }
      } finally {
        await sandbox.close();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.parallel ?? DEFAULT_PARALLEL) }, worker));
  } finally {
    drainWarmPool();
  }
  return outcomes;
}
