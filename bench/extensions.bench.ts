// Host extensions (issue 14, docs/extensions.md): the round trip of a call — the sandbox's
// process asks the host, the handler answers at once, the process exits — in a Node
// sandbox, against starting a built-in tool the same way in the same run; and stdin
// streamed through a handler, against the same bytes through `wc -c`. Target: a round
// trip ≤ 1 ms. The hop is two crossings of the child process's channel (the call, the
// answer), so on a loaded machine it costs what waking the other process costs.

import { Sandbox } from '../src/host/node/index.js';
import { percentile, type BenchRow } from './report.js';

const CALLS = 200;
const STREAM_BYTES = 20 * 1024 * 1024;

/** Wall time of `command` in ms, `samples` times after `warmup`, checking its output. */
async function times(sandbox: Sandbox, command: string | string[], expected: string, warmup: number, samples: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < warmup + samples; i++) {
    const started = performance.now();
    const result = await sandbox.run(command, { timeoutMs: 120_000 });
    const elapsed = performance.now() - started;
    if (result.stdout !== expected) throw new Error(`${String(command)} printed ${JSON.stringify(result.stdout.slice(0, 200))}, not ${JSON.stringify(expected)}`);
    if (i >= warmup) out.push(elapsed);
  }
  return out;
}

export async function run(): Promise<BenchRow[]> {
  const sandbox = await Sandbox.create({
    extensions: [
      { name: 'ping', description: 'ping: answers at once', handler: () => ({ stdout: 'pong\n' }) },
      {
        name: 'count',
        description: 'count: bytes on stdin',
        maxStdinBytes: STREAM_BYTES,
        handler: async ({ stdin }) => {
          let bytes = 0;
          for await (const piece of stdin) bytes += piece.length;
          return { stdout: `${bytes}\n` };
        },
      },
    ],
  });
  const rows: BenchRow[] = [];
  try {
    // One call per run, from the host API (argv, no shell): the whole path of a run.
    const call = await times(sandbox, ['ping'], 'pong\n', 100, 500);
    const tool = await times(sandbox, ['echo', 'pong'], 'pong\n', 100, 500);
    rows.push({ group: 'extensions', name: 'a run of one call (`ping`), p50', value: percentile(call, 0.5), unit: 'ms', reference: percentile(tool, 0.5), referenceLabel: 'a run of `echo pong`' });
    // The hop itself: the same process answered by the kernel (`--help`) or by the host.
    const local = await times(sandbox, ['ping', '--help'], 'ping: answers at once\n', 100, 500);
    rows.push({ group: 'extensions', name: 'round trip to the host (run of `ping` − run of `ping --help`), p50', value: Math.max(0, percentile(call, 0.5) - percentile(local, 0.5)), unit: 'ms', target: '≤ 1 ms in Node' });
    // Calls from a shell loop: per call, against the same loop starting a tool.
    const loop = (name: string): string => `for i in $(seq ${CALLS}); do ${name}; done | wc -l`;
    const calls = await times(sandbox, loop('ping'), `${CALLS}\n`, 1, 5);
    const tools = await times(sandbox, loop('/bin/echo pong'), `${CALLS}\n`, 1, 5);
    const perCall = percentile(calls, 0.5) / CALLS;
    const perTool = percentile(tools, 0.5) / CALLS;
    rows.push({ group: 'extensions', name: 'round trip of a call from the shell, p50', value: perCall, unit: 'ms', reference: perTool, referenceLabel: 'starting /bin/echo' });
    // Stdin streamed to a handler, in pieces as it pulls.
    const streamed = await times(sandbox, `head -c ${STREAM_BYTES} /dev/zero | count`, `${STREAM_BYTES}\n`, 1, 3);
    const counted = await times(sandbox, `head -c ${STREAM_BYTES} /dev/zero | wc -c`, `${STREAM_BYTES}\n`, 1, 3);
    const mbps = (ms: number): number => STREAM_BYTES / (1024 * 1024) / (ms / 1000);
    rows.push({ group: 'extensions', name: 'stdin streamed to a handler', value: mbps(percentile(streamed, 0.5)), unit: 'MB/s', reference: mbps(percentile(counted, 0.5)), referenceLabel: '`| wc -c` in the sandbox', higherIsBetter: true });
  } finally {
    await sandbox.destroy();
  }
  return rows;
}
