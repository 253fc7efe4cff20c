// `airlock gate` arguments: parsed into a typed command or a usage error (exit 2).

import { resolve } from 'node:path';
import { BACKEND_NAMES, type BackendName } from '../../../server/backends/contract.js';
import { GATE_LIMITS } from '../../protocol/limits.js';

export const GATE_USAGE = `Usage: airlock gate run GATE --workspace DIR [options]
       airlock gate health [--json]
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
  | { kind: 'run'; gate: string; workspace: string; backend?: BackendName; maxAttempts?: number; regenerate?: string; base?: string; catalog: string[]; json: boolean; gatesDir?: string }
  | { kind: 'health'; json: boolean; gatesDir?: string }
  | { kind: 'inspect'; run: string; json: boolean; gatesDir?: string }
  | { kind: 'gc'; olderThanMs: number; gatesDir?: string };

export type Parsed = { ok: true; command: GateCommand } | { ok: false; error: string };

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
  const VALUED = new Set(['--workspace', '--backend', '--max-attempts-override', '--regenerate', '--base', '--catalog', '--gates-dir', '--older-than']);
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
      return {
        ok: true,
        command: {
          kind: 'run', gate: positional[0] as string, workspace: resolve(workspace), catalog, json, ...gatesDir,
          ...(backend === undefined ? {} : { backend: backend as BackendName }),
          ...(maxAttempts === undefined ? {} : { maxAttempts }),
          ...(value('--regenerate') === undefined ? {} : { regenerate: value('--regenerate') as string }),
          ...(value('--base') === undefined ? {} : { base: resolve(value('--base') as string) }),
        },
      };
    }
    case 'health':
      return { ok: true, command: { kind: 'health', json, ...gatesDir } };
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
      return { ok: false, error: `unknown subcommand '${sub}' (run, health, inspect, gc)` };
  }
}
