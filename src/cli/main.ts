// The `airlock` command: dispatches to the subcommand named by the first argument
// (src/cli/commands.ts). Usage errors exit 2 with a message; errors of the sandbox itself
// (a limit, a closed sandbox) exit 2 too, any other failure 1.

import { AirlockError, drainWarmPool } from '../host/node/index.js';
import type { CliContext } from './command.js';
import { COMMANDS } from './commands.js';

const VERSION = '0.1.0';

function usage(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: airlock COMMAND [ARGS...]\n\nCommands:\n${lines.join('\n')}\n\nRun 'airlock COMMAND --help' for a command's options.\n  -h, --help     show this help\n      --version  show the version\n`;
}

const context: CliContext = {
  usageError(message, command) {
    const name = command === undefined ? 'airlock' : `airlock ${command}`;
    process.stderr.write(`${name}: ${message}\nTry '${name} --help' for more information.\n`);
    return 2;
  },
};

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  if (first === '--version') {
    process.stdout.write(`airlock ${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === first);
  if (command === undefined) return context.usageError(`unknown command '${first}'`);
  try {
    return await command.main(rest, context);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`airlock ${command.name}: ${message}\n`);
    return error instanceof AirlockError ? 2 : 1;
  } finally {
    drainWarmPool();
  }
}
