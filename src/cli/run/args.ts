// Parsing of `airlock run`'s arguments. Returns a value or a usage error; never exits.

import { ArgCursor, parsing, UsageError, type Parsed } from '../command.js';

export interface RunCommand {
  kind: 'run';
  dir?: string;
  timeoutMs?: number;
  allowTools: string[];
  json: boolean;
  /** Append the run's audit events to this log (a hash chain, docs/audit.md). */
  audit?: string;
  /** The signer key file for the log's checkpoints (default: the default audit key). */
  auditKey?: string;
  /** Hosts and group names the sandbox may reach (--net). */
  net: string[];
  netMode?: 'strict' | 'open';
  netLog: boolean;
  /** A policy file (--net-policy). */
  netPolicy?: string;
  script?: string;
  command?: string;
  argv?: string[];
}

export type ParseResult = Parsed<RunCommand | { kind: 'help' }>;

export const RUN_USAGE = `Usage: airlock run [OPTIONS] (-f SCRIPT | -c COMMAND | -- PROGRAM [ARGS...])

Runs code in a fresh Airlock sandbox and exits with its exit status.

  -f, --file SCRIPT       run the shell script SCRIPT (a file on this machine)
  -c, --command STRING    run STRING with the sandbox's shell
  -- PROGRAM ARGS...      run PROGRAM with ARGS directly, without a shell
      --dir DIR           copy DIR into /home/user (the working directory) first
      --timeout MS        stop the run after MS milliseconds (default 30000)
      --allow-tool NAME   allow only the named tools (repeat for several)
      --json              print the result as JSON instead of the run's output
      --audit FILE        append the run's audit events to FILE, a hash-chained log that
                          'airlock audit verify FILE' checks (checkpoints signed with the key
                          at $AIRLOCK_AUDIT_KEY or ~/.config/airlock/audit.key, made if missing)
      --audit-key KEY     sign the log's checkpoints with this signer key file instead
      --net GROUP|HOST    let the sandbox reach HOST (example.com, *.example.com,
                          host:port) or a group: github, provider, package-registry,
                          web-search, or one of the policy file (repeat for several)
      --net-mode MODE     strict (default: only what --net lists) or open (any public host)
      --net-policy FILE   read the network policy from FILE (YAML or JSON; docs/network.md)
      --net-log           print every network decision to stderr
  -h, --help              show this help
`;

/** Parses the arguments after `run`. */
export function parseRunArgs(argv: string[]): ParseResult {
  return parsing(() => {
    const command: RunCommand = { kind: 'run', allowTools: [], json: false, net: [], netLog: false };
    const args = new ArgCursor(argv);
    for (let arg = args.next(); arg !== undefined; arg = args.next()) {
      switch (arg) {
        case '--':
          command.argv = args.rest();
          if (command.argv.length === 0) throw new UsageError('missing program after --');
          break;
        case '-f':
        case '--file':
          command.script = args.value(`option ${arg} needs a script path`);
          break;
        case '-c':
        case '--command':
          command.command = args.value(`option ${arg} needs a command`);
          break;
        case '--dir':
          command.dir = args.value('--dir needs a directory');
          break;
        case '--timeout': {
          const v = Number(args.next());
          if (!Number.isInteger(v) || v <= 0) throw new UsageError('--timeout needs a positive number of milliseconds');
          command.timeoutMs = v;
          break;
        }
        case '--allow-tool':
          command.allowTools.push(args.value('--allow-tool needs a tool name'));
          break;
        case '--json':
          command.json = true;
          break;
        case '--audit':
          command.audit = args.value(`${arg} needs a file`);
          break;
        case '--audit-key':
          command.auditKey = args.value(`${arg} needs a file`);
          break;
        case '--net': {
          const v = args.value('--net needs a group or host');
          if (v === '') throw new UsageError('--net needs a group or host');
          command.net.push(v);
          break;
        }
        case '--net-mode': {
          const v = args.next();
          if (v !== 'strict' && v !== 'open') throw new UsageError(`--net-mode needs strict or open, not '${v ?? ''}'`);
          command.netMode = v;
          break;
        }
        case '--net-policy':
          command.netPolicy = args.value('--net-policy needs a file');
          break;
        case '--net-log':
          command.netLog = true;
          break;
        case '-h':
        case '--help':
          return { kind: 'help' } as const;
        default:
          throw new UsageError(`unknown option '${arg}'`);
      }
    }
    const given = [command.script, command.command, command.argv].filter((x) => x !== undefined).length;
    if (given !== 1) throw new UsageError('give exactly one of -f SCRIPT, -c COMMAND or -- PROGRAM ARGS');
    if (command.auditKey !== undefined && command.audit === undefined) throw new UsageError('--audit-key needs --audit FILE');
    return command;
  });
}
