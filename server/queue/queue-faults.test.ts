// Faults of the gate queue with real worker processes (`airlock gate worker`): three
// workers, 30 gates on the wasm backend; one worker is killed with -9 mid-run and Redis is
// restarted mid-run (appendonly on). Every gate completes exactly once (one attempt, one
// accepted result per run), every ledger verifies, and no worker's temp dir is left.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedger } from '../gates/ledger.js';
import type { GateOutcome } from '../gates/runner.js';
import { placementsOf } from './placement.js';
import { runGate, startKit, tinyWorkspace, type Kit } from './queue-test-kit.js';
import { redisMissing, TestRedis } from './test-redis.js';

const missing = redisMissing();
const root = fileURLToPath(new URL('../..', import.meta.url));
const GATES = 30;

interface WorkerProcess {
  child: ChildProcess;
  id: string;
  exited: Promise<number | null>;
}

/** Starts `airlock gate worker` (the CLI from source) and waits for its ready line. */
async function startWorker(url: string, workRoot: string): Promise<WorkerProcess> {
  const args = ['gate', 'worker', '--queue', url, '--backends', 'wasm', '--concurrency', '1', '--work-dir', workRoot, '--lock-ms', '2000', '--stalled-interval-ms', '1000', '--heartbeat-ms', '500'];
  const script = "const { main } = await import('./src/cli/main.ts'); const code = await main(JSON.parse(process.env.AIRLOCK_TEST_ARGS)); process.exit(code);";
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, env: { ...process.env, AIRLOCK_TEST_ARGS: JSON.stringify(args) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const id = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /worker (\S+) ready/.exec(out);
      if (match !== null) resolve(match[1] as string);
    });
    void exited.then((code) => reject(new Error(`the worker exited ${code} before it was ready: ${stderr}`)));
  });
  return { child, id, exited };
}

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting until ${what}`);
}

describe.skipIf(missing !== undefined)(`gate queue faults (worker processes)${missing === undefined ? '' : ` — skipped: ${missing}`}`, () => {
  let redis: TestRedis;
  let kit: Kit;
  let workRoot: string;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    redis = await TestRedis.start();
    kit = await startKit(redis.url);
    workRoot = join(kit.dir, 'work');
    workers.push(...(await Promise.all([0, 1, 2].map(() => startWorker(redis.url, workRoot)))));
    // Three CLIs compiled by tsx at once on a loaded machine: more than the default hook time.
  }, 600_000);
  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await kit?.close();
    await redis?.close();
  });

  it('completes every gate exactly once through a kill -9 and a Redis restart', async () => {
    let finished = 0;
    const runs = Array.from({ length: GATES }, (_, n) => runGate(kit, tinyWorkspace(kit.dir, `g${n}`, 1)).then((outcome) => {
      finished += 1;
      return outcome;
    }));
    // Kill a worker while it is running a gate (it has reported the sandbox run started).
    const [victim] = workers;
    if (victim === undefined) throw new Error('no worker');
    await until('the first worker is running a gate', () => kit.dispatch.runs.unsettled().some((run) => run.deliveries.at(-1)?.workerId === victim.id));
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBe(null);
    // Restart Redis while gates are still queued and running.
    await until('a third of the gates finished', () => finished >= GATES / 3);
    expect(finished).toBeLessThan(GATES);
    await redis.restart(1000);
    const outcomes: GateOutcome[] = await Promise.all(runs);

    expect(outcomes.map((o) => o.outcome)).toEqual(Array(GATES).fill('passed'));
    const jobIds = new Set<string>();
    const deliveries: string[][] = [];
    for (const outcome of outcomes) {
      const ledger = await readLedger(outcome.ledgerPath); // verifies the chain
      expect(ledger.attempts).toHaveLength(1);
      const placements = placementsOf(outcome.runDir);
      expect(Object.keys(placements)).toEqual([ledger.attempts[0]?.sandboxRunId]);
      for (const placement of Object.values(placements)) {
        jobIds.add(placement.jobId);
        deliveries.push([...placement.deliveries.map((d) => d.workerId), placement.workerId]);
      }
    }
    expect(jobIds.size).toBe(GATES);
    // The killed worker's gate was taken over by another worker, which delivered its result.
    expect(deliveries.some((workersOfRun) => workersOfRun.includes(victim.id) && workersOfRun.at(-1) !== victim.id)).toBe(true);

    // The live workers swept the killed one's directory; on SIGTERM they remove their own.
    await until("the killed worker's temp dir is swept", () => !existsSync(join(workRoot, victim.id)));
    for (const worker of workers.slice(1)) worker.child.kill('SIGTERM');
    expect(await Promise.all(workers.slice(1).map((w) => w.exited))).toEqual([0, 0]);
    expect(readdirSync(workRoot)).toEqual([]);
    expect(readdirSync(kit.scratch)).toEqual([]);
    // Thirty gates on three workers under a loaded machine: more than the suite's default 60 s may pass.
  }, 600_000);
});
