// Parsing of `airlock run`'s arguments. Returns a value or a usage error; never exits.

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

export type ParseResult = { ok: true; command: RunCommand | 'help' } | { ok: false; error: string };

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
  const command: RunCommand = { kind: 'run', allowTools: [], json: false, net: [], netLog: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = (): string | undefined => argv[++i];
    switch (arg) {
      case '--':
        command.argv = argv.slice(i + 1);
        if (command.argv.length === 0) return { ok: false, error: 'missing program after --' };
        i = argv.length;
        break;
      case '-f':
      case '--file': {
        const v = value();
        if (v === undefined) return { ok: false, error: `option ${arg} needs a script path` };
        command.script = v;
        break;
      }
      case '-c':
      case '--command': {
        const v = value();
        if (v === undefined) return { ok: false, error: `option ${arg} needs a command` };
        command.command = v;
        break;
      }
      case '--dir': {
        const v = value();
        if (v === undefined) return { ok: false, error: '--dir needs a directory' };
        command.dir = v;
        break;
      }
      case '--timeout': {
        const v = Number(value());
        if (!Number.isInteger(v) || v <= 0) return { ok: false, error: '--timeout needs a positive number of milliseconds' };
        command.timeoutMs = v;
        break;
      }
      case '--allow-tool': {
        const v = value();
        if (v === undefined) return { ok: false, error: '--allow-tool needs a tool name' };
        command.allowTools.push(v);
        break;
      }
      case '--json':
        command.json = true;
        break;
      case '--audit':
      case '--audit-key': {
        const v = value();
        if (v === undefined) return { ok: false, error: `${arg} needs a file` };
        if (arg === '--audit') command.audit = v;
        else command.auditKey = v;
        break;
      }
      case '--net': {
        const v = value();
        if (v === undefined || v === '') return { ok: false, error: '--net needs a group or host' };
        command.net.push(v);
        break;
      }
      case '--net-mode': {
        const v = value();
        if (v !== 'strict' && v !== 'open') return { ok: false, error: `--net-mode needs strict or open, not '${v ?? ''}'` };
        command.netMode = v;
        break;
      }
      case '--net-policy': {
        const v = value();
        if (v === undefined) return { ok: false, error: '--net-policy needs a file' };
        command.netPolicy = v;
        break;
      }
      case '--net-log':
        command.netLog = true;
        break;
      case '-h':
      case '--help':
        return { ok: true, command: 'help' };
      default:
        return { ok: false, error: `unknown option '${arg}'` };
    }
  }
  const given = [command.script, command.command, command.argv].filter((x) => x !== undefined).length;
  if (given !== 1) return { ok: false, error: 'give exactly one of -f SCRIPT, -c COMMAND or -- PROGRAM ARGS' };
  if (command.auditKey !== undefined && command.audit === undefined) return { ok: false, error: '--audit-key needs --audit FILE' };
  return { ok: true, command };
}
