// The shape every `airlock` subcommand has. Each command lives in its own folder under
// src/cli/ and is listed once in src/cli/commands.ts; main.ts only dispatches.

export interface CliContext {
  /** Prints `airlock[ COMMAND]: MESSAGE` and the help hint to stderr; returns exit status 2. */
  usageError(message: string, command?: string): number;
}

export interface CliCommand {
  name: string;
  /** One line for `airlock --help`. */
  summary: string;
  /** The full `airlock NAME --help` text. */
  usage: string;
  /** Runs the command with the arguments after its name; resolves to the exit status. */
  main(argv: string[], cli: CliContext): Promise<number>;
}

/** What a command's argument parser returns: the parsed command, or a usage error. */
export type Parsed<C> = { ok: true; command: C } | { ok: false; error: string };

/**
 * A command whose arguments parse into one of its subcommands or `help`: a usage error
 * exits 2 naming the problem, help prints `usage` and exits 0, and `run` does the rest.
 */
export function parsedCommand<C extends { kind: string }>(spec: {
  name: string;
  summary: string;
  usage: string;
  parse: (argv: string[]) => Parsed<C>;
  run: (command: Exclude<C, { kind: 'help' }>, cli: CliContext) => Promise<number> | number;
}): CliCommand {
  return {
    name: spec.name,
    summary: spec.summary,
    usage: spec.usage,
    async main(argv, cli) {
      const parsed = spec.parse(argv);
      if (!parsed.ok) return cli.usageError(parsed.error, spec.name);
      if (parsed.command.kind === 'help') {
        process.stdout.write(spec.usage);
        return 0;
      }
      return spec.run(parsed.command as Exclude<C, { kind: 'help' }>, cli);
    },
  };
}

/** A usage error a parser throws from deep in its loop; `parsing` turns it into `{ ok: false }`. */
export class UsageError extends Error {}

/** The arguments of a hand-written parser, read one at a time. */
export class ArgCursor {
  private index = -1;

  constructor(private readonly argv: readonly string[]) {}

  /** The next argument, or undefined past the last. */
  next(): string | undefined {
    return this.argv[++this.index];
  }

  /** An option's value (the next argument): a usage error saying `error` when there is none. */
  value(error: string): string {
    const value = this.next();
    if (value === undefined) throw new UsageError(error);
    return value;
  }

  /** All the arguments not read yet (reading them). */
  rest(): string[] {
    const rest = this.argv.slice(this.index + 1);
    this.index = this.argv.length;
    return rest;
  }
}

/** Runs a parser that throws UsageError for bad arguments, as a Parsed result. */
export function parsing<C>(parse: () => C): Parsed<C> {
  try {
    return { ok: true, command: parse() };
  } catch (error) {
    if (error instanceof UsageError) return { ok: false, error: error.message };
    throw error;
  }
}
