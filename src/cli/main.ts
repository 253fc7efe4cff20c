// The `airlock` command: runs code in a fresh sandbox from a terminal or a script.

import { readFile } from 'node:fs/promises';
import { Sandbox, drainWarmPool, AirlockError } from '../host/node/index.js';
import { USAGE, parseCli, type RunCommand } from './args.js';
import { copyDirInto } from './copy-dir.js';

const VERSION = '0.1.0';

async function run(command: RunCommand): Promise<number> {
  const sandbox = await Sandbox.create({ allowedTools: command.allowTools.length > 0 ? command.allowTools : undefined });
  try {
    if (command.dir !== undefined) await copyDirInto(sandbox, command.dir);
    const target = command.argv ?? command.command ?? (await readFile(command.script as string, 'utf8'));
    const result = await sandbox.run(target, {
      timeoutMs: command.timeoutMs,
      onStdout: command.json ? undefined : (_text, bytes) => process.stdout.write(bytes),
      onStderr: command.json ? undefined : (_text, bytes) => process.stderr.write(bytes),
    });
    if (command.json) {
      const { stdoutBytes: _o, stderrBytes: _e, ...printable } = result;
      process.stdout.write(JSON.stringify(printable, null, 2) + '\n');
    }
    return result.exitCode;
  } finally {
    await sandbox.destroy();
  }
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCli(argv);
  if (!parsed.ok) {
    process.stderr.write(`airlock: ${parsed.error}\nTry 'airlock --help' for more information.\n`);
    return 2;
  }
  const command = parsed.command;
  if (command.kind === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command.kind === 'version') {
    process.stdout.write(`airlock ${VERSION}\n`);
    return 0;
  }
  try {
    return await run(command);
  } catch (error) {
    const message = error instanceof AirlockError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`airlock: ${message}\n`);
    return error instanceof AirlockError ? 2 : 1;
  } finally {
    drainWarmPool();
  }
}
