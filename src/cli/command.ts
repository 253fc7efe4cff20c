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
