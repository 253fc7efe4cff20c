// Parsing of the `airlock` command line. Returns a value or a usage error; never exits.

export interface RunCommand {
  kind: 'run';
  dir?: string;
  timeoutMs?: number;
  allowTools: string[];
  json: boolean;
  script?: string;
  command?: string;
  argv?: string[];
}

export type CliCommand = RunCommand | { kind: 'help' } | { kind: 'version' };

export type ParseResult = { ok: true; command: CliCommand } | { ok: false; error: string };

export const USAGE = `Usage: airlock run [OPTIONS] (-f SCRIPT | -c COMMAND | -- PROGRAM [ARGS...])

Runs code in a fresh Airlock sandbox and exits with its exit status.

  -f, --file SCRIPT       run the shell script SCRIPT (a file on this machine)
  -c, --command STRING    run STRING with the sandbox's shell
  -- PROGRAM ARGS...      run PROGRAM with ARGS directly, without a shell
      --dir DIR           copy DIR into /home/user (the working directory) first
      --timeout MS        stop the run after MS milliseconds (default 30000)
      --allow-tool NAME   allow only the named tools (repeat for several)
      --json              print the result as JSON instead of the run's output
  -h, --help              show this help
      --version           show the version
`;

export function parseCli(argv: string[]): ParseResult {
  if (argv.length === 0 || argv[0] === '-h' || argv[0] === '--help' || argv[0] === 'help') return { ok: true, command: { kind: 'help' } };
  if (argv[0] === '--version') return { ok: true, command: { kind: 'version' } };
  if (argv[0] !== 'run') return { ok: false, error: `unknown command '${argv[0]}'` };
  const command: RunCommand = { kind: 'run', allowTools: [], json: false };
  for (let i = 1; i < argv.length; i++) {
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
      case '-h':
      case '--help':
        return { ok: true, command: { kind: 'help' } };
      default:
        return { ok: false, error: `unknown option '${arg}'` };
    }
  }
  const given = [command.script, command.command, command.argv].filter((x) => x !== undefined).length;
  if (given !== 1) return { ok: false, error: 'give exactly one of -f SCRIPT, -c COMMAND or -- PROGRAM ARGS' };
  return { ok: true, command };
}
