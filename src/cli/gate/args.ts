// `airlock gate` arguments: parsed into a typed command or a usage error (exit 2).

import { resolve } from 'node:path';
import { BACKEND_NAMES, type BackendName } from '../../../server/backends/contract.js';
import { GATE_LIMITS } from '../../protocol/limits.js';

export const GATE_USAGE = `Usage: airlock gate run GATE --workspace DIR [options]
       airlock gate worker --queue redis://HOST:PORT [--backends qemu,wasm] [--concurrency N]
       airlock gate health [--queue URL] [--json]
       airlock gate inspect RUN [--json]
       airlock gate gc --older-than AGE

Runs agent output through a gate (docs/gates.md): build, tests, trace and policy signals,
strict AND, up to three attempts, escalation to a human.

run options:
  --workspace DIR               the code to gate (copied in; never written by the gate)
  --backend wasm|qemu|firecracker   where it runs (default: the gate's)
  --max-attempts-override N     more or fewer attempts than the gate's (needs --operator-ack)
  --operator-ack                acknowledges the override
  --regenerate CMD              run CMD (sh -c, in the workspace) after a failed attempt; it
                                gets the failure on stdin and in AIRLOCK_GATE_PRIOR_FAILURE
  --base DIR                    the workspace before the change (policy diff rules)
  --catalog DIR                 more gate files (*.yaml), after the built-in catalog
  --json                        print the outcome with its attempts as JSON
  --queue URL                   enqueue the runs for workers (redis://, rediss:// for TLS,
                                redis://:PASSWORD@HOST:PORT) instead of running them here
  --listen HOST:PORT            where this process serves the workers' artifact and result
                                endpoints (default 127.0.0.1:0)
  --advertise URL               the base URL workers reach them at (default http://LISTEN)
worker options:
  --queue URL                   the queue to take gate runs from (required)
  --backends LIST               backends to run (default wasm,qemu); one that cannot run
                                here is declined with its reason
  --concurrency N               runs at once (default 1)
  --work-dir DIR                scratch root (default $TMPDIR/airlock-gate-worker)
  --config FILE                 a server config file (docs/server.md) whose network.secrets
                                this worker's egress proxy adds to scoped runs' requests
  --lock-ms N, --stalled-interval-ms N, --heartbeat-ms N
                                BullMQ's job lock, its stalled-job check and the fleet
                                heartbeat (defaults 30000, 30000, 5000)
health options:
  --queue URL                   list the queue's workers and its depth instead
common options:
  --gates-dir DIR               where gate runs are kept (default $AIRLOCK_GATES_DIR or
                                ~/.local/share/airlock/gates)
  -h, --help                    show this help

Exit status of run: 0 passed, 1 failed (an operator must act: backend unreachable,
out of memory), 11 escalated to a human, 2 usage or configuration error.
gc: AGE is a number with s, m, h or d (7d).
`;

export type GateCommand =
  | { kind: 'help' }
  | { kind: 'run'; gate: string; workspace: string; backend?: BackendName; maxAttempts?: number; regenerate?: string; base?: string; catalog: string[]; json: boolean; gatesDir?: string; queue?: QueueTarget }
  | { kind: 'health'; json: boolean; gatesDir?: string; queue?: string }
  | WorkerCommand
  | { kind: 'inspect'; run: string; json: boolean; gatesDir?: string }
  | { kind: 'gc'; olderThanMs: number; gatesDir?: string };

export type Parsed = { ok: true; command: GateCommand } | { ok: false; error: string };

/** `gate run --queue`: where the runs go and where this process serves their endpoints. */
export interface QueueTarget {
  url: string;
  listenHost: string;
  listenPort: number;
  advertise?: string;
}

export interface WorkerCommand {
  kind: 'worker';
  queue: string;
  backends: BackendName[];
  concurrency: number;
  workDir?: string;
  /** A server config file: its network.secrets are this worker's (jobs carry none). */
  configFile?: string;
  lockMs?: number;
  stalledIntervalMs?: number;
  heartbeatMs?: number;
}

function positiveInteger(name: string, text: string | undefined, max: number): number | string | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  return Number.isInteger(value) && value >= 1 && value <= max ? value : `${name}: '${text}' must be an integer from 1 to ${max}`;
}

function parseWorker(value: (name: string) => string | undefined): Parsed {
  const queue = value('--queue');
  if (queue === undefined) return { ok: false, error: 'worker needs --queue redis://HOST:PORT' };
  const backends = (value('--backends') ?? 'wasm,qemu').split(',').map((b) => b.trim()).filter((b) => b !== '');
  const unknown = backends.find((b) => !(BACKEND_NAMES as readonly string[]).includes(b));
  if (unknown !== undefined || backends.length === 0) return { ok: false, error: `--backends: '${unknown ?? ''}' is not one of ${BACKEND_NAMES.join(', ')}` };
  const numbers: Record<string, number | undefined> = {};
  for (const [flag, max] of [['--concurrency', 64], ['--lock-ms', 3_600_000], ['--stalled-interval-ms', 3_600_000], ['--heartbeat-ms', 600_000]] as const) {
    const parsed = positiveInteger(flag, value(flag), max);
    if (typeof parsed === 'string') return { ok: false, error: parsed };
    numbers[flag] = parsed;
  }
  const optional = <K extends string>(key: K, found: number | undefined): Partial<Record<K, number>> => (found === undefined ? {} : ({ [key]: found } as Record<K, number>));
  return {
    ok: true,
    command: {
      kind: 'worker', queue, backends: [...new Set(backends)] as BackendName[], concurrency: numbers['--concurrency'] ?? 1,
      ...(value('--work-dir') === undefined ? {} : { workDir: resolve(value('--work-dir') as string) }),
      ...(value('--config') === undefined ? {} : { configFile: resolve(value('--config') as string) }),
      ...optional('lockMs', numbers['--lock-ms']), ...optional('stalledIntervalMs', numbers['--stalled-interval-ms']), ...optional('heartbeatMs', numbers['--heartbeat-ms']),
    },
  };
}

function parseQueueTarget(value: (name: string) => string | undefined): QueueTarget | string | undefined {
  const url = value('--queue');
  if (url === undefined) return value('--listen') !== undefined || value('--advertise') !== undefined ? '--listen and --advertise need --queue URL' : undefined;
  const listen = value('--listen') ?? '127.0.0.1:0';
  const match = /^(.+):(\d{1,5})$/.exec(listen);
  if (match === null || Number(match[2]) > 65535) return `--listen: '${listen}' is not HOST:PORT`;
  const advertise = value('--advertise');
  if (advertise !== undefined && !/^https?:\/\/[^/?#]+$/.test(advertise)) return `--advertise: '${advertise}' is not http(s)://HOST:PORT`;
  return { url, listenHost: (match[1] as string).replace(/^\[(.*)\]$/, '$1'), listenPort: Number(match[2]), ...(advertise === undefined ? {} : { advertise }) };
}

export function parseAge(text: string): number | null {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (match === null) return null;
  return Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd'];
}

export function parseGateArgs(argv: string[]): Parsed {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '-h' || sub === '--help') return { ok: true, command: { kind: 'help' } };
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const catalog: string[] = [];
  const VALUED = new Set(['--workspace', '--backend', '--max-attempts-override', '--regenerate', '--base', '--catalog', '--gates-dir', '--older-than',
    '--queue', '--listen', '--advertise', '--backends', '--concurrency', '--work-dir', '--lock-ms', '--stalled-interval-ms', '--heartbeat-ms', '--config']);
  const BOOLEAN = new Set(['--operator-ack', '--json', '-h', '--help']);
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i] as string;
    const [name, inline] = word.startsWith('--') && word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined];
    if (VALUED.has(name)) {
      const value = inline ?? rest[++i];
      if (value === undefined) return { ok: false, error: `option '${name}' needs a value` };
      if (name === '--catalog') catalog.push(resolve(value));
      else flags.set(name, value);
    } else if (BOOLEAN.has(name)) flags.set(name, true);
    else if (name.startsWith('-')) return { ok: false, error: `unknown option '${name}'` };
    else positional.push(word);
  }
  if (flags.has('--help') || flags.has('-h')) return { ok: true, command: { kind: 'help' } };
  const value = (name: string): string | undefined => {
    const found = flags.get(name);
    return typeof found === 'string' ? found : undefined;
  };
  const gatesDir = value('--gates-dir') === undefined ? {} : { gatesDir: resolve(value('--gates-dir') as string) };
  const json = flags.get('--json') === true;
  switch (sub) {
    case 'run': {
      if (positional.length !== 1) return { ok: false, error: 'run needs exactly one GATE' };
      const workspace = value('--workspace');
      if (workspace === undefined) return { ok: false, error: 'run needs --workspace DIR' };
      const backend = value('--backend');
      if (backend !== undefined && !(BACKEND_NAMES as readonly string[]).includes(backend)) return { ok: false, error: `--backend: '${backend}' is not one of ${BACKEND_NAMES.join(', ')}` };
      const override = value('--max-attempts-override');
      let maxAttempts: number | undefined;
      if (override !== undefined) {
        maxAttempts = Number(override);
        if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > GATE_LIMITS.maxAttemptsOverride) return { ok: false, error: `--max-attempts-override: '${override}' must be an integer from 1 to ${GATE_LIMITS.maxAttemptsOverride}` };
        if (flags.get('--operator-ack') !== true) return { ok: false, error: '--max-attempts-override needs --operator-ack (the retry policy is a reviewed decision)' };
      }
      const queue = parseQueueTarget(value);
      if (typeof queue === 'string') return { ok: false, error: queue };
      return {
        ok: true,
        command: {
          kind: 'run', gate: positional[0] as string, workspace: resolve(workspace), catalog, json, ...gatesDir,
          ...(queue === undefined ? {} : { queue }),
          ...(backend === undefined ? {} : { backend: backend as BackendName }),
          ...(maxAttempts === undefined ? {} : { maxAttempts }),
          ...(value('--regenerate') === undefined ? {} : { regenerate: value('--regenerate') as string }),
          ...(value('--base') === undefined ? {} : { base: resolve(value('--base') as string) }),
        },
      };
    }
    case 'health':
      return { ok: true, command: { kind: 'health', json, ...gatesDir, ...(value('--queue') === undefined ? {} : { queue: value('--queue') as string }) } };
    case 'worker':
      return parseWorker(value);
    case 'inspect':
      if (positional.length !== 1) return { ok: false, error: 'inspect needs exactly one RUN (a gate run id or directory)' };
      return { ok: true, command: { kind: 'inspect', run: positional[0] as string, json, ...gatesDir } };
    case 'gc': {
      const age = value('--older-than');
      if (age === undefined) return { ok: false, error: 'gc needs --older-than AGE (e.g. 7d)' };
      const olderThanMs = parseAge(age);
      if (olderThanMs === null) return { ok: false, error: `--older-than: '${age}' is not an age (a number with s, m, h or d)` };
      return { ok: true, command: { kind: 'gc', olderThanMs, ...gatesDir } };
    }
    default:
      return { ok: false, error: `unknown subcommand '${sub}' (run, worker, health, inspect, gc)` };
  }
}
