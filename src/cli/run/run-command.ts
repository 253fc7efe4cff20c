// `airlock run`: runs code in a fresh sandbox and exits with its exit status.

import { readFile } from 'node:fs/promises';
import { Sandbox } from '../../host/node/index.js';
import { parsedCommand, type CliCommand } from '../command.js';
import { RUN_USAGE, parseRunArgs, type RunCommand } from './args.js';
import { copyDirInto } from '../../host/node/copy-dir.js';
import { openAuditLog } from './audit-log.js';
import { netLogger, runPolicy } from './net-policy.js';
import { ConfigError } from '../../../server/config/load.js';

/** The status of a process killed by SIGPIPE (128 + 13), what a shell reports for `cmd | head`. */
const EXIT_SIGPIPE = 141;

async function run(command: RunCommand): Promise<number> {
  const network = runPolicy(command);
  const audit = command.audit === undefined ? undefined : await openAuditLog(command.audit, command.auditKey);
  const netLog = command.netLog ? netLogger((line) => process.stderr.write(line)) : undefined;
  const listeners = [audit?.listener, netLog].filter((l) => l !== undefined);
  const sandbox = await Sandbox.create({
    allowedTools: command.allowTools.length > 0 ? command.allowTools : undefined,
    network,
    onAuditEvent: listeners.length === 0 ? undefined : (event) => listeners.forEach((listener) => listener(event)),
  }).catch(async (error: unknown) => {
    await audit?.close();
    throw error;
  });
  try {
    if (command.dir !== undefined) await copyDirInto(sandbox, command.dir);
    const target = command.argv ?? command.command ?? (await readFile(command.script as string, 'utf8'));
    // A reader that went away (`airlock run -c yes | head`): stop the run and end quietly
    // with 141, as a CLI killed by SIGPIPE does, instead of an EPIPE stack trace.
    const readerGone = new AbortController();
    const onPipeError = (error: NodeJS.ErrnoException): void => {
      if (error.code !== 'EPIPE') throw error;
      readerGone.abort();
    };
    process.stdout.on('error', onPipeError);
    let result: Awaited<ReturnType<Sandbox['run']>>;
    try {
      result = await sandbox.run(target, {
        timeoutMs: command.timeoutMs,
        signal: readerGone.signal,
        onStdout: command.json ? undefined : (_text, bytes) => {
          if (!readerGone.signal.aborted) process.stdout.write(bytes);
        },
        onStderr: command.json ? undefined : (_text, bytes) => process.stderr.write(bytes),
      });
    } finally {
      process.stdout.off('error', onPipeError);
    }
    if (readerGone.signal.aborted) return EXIT_SIGPIPE;
    if (command.json) {
      const { stdoutBytes: _o, stderrBytes: _e, ...printable } = result;
      process.stdout.write(JSON.stringify(printable, null, 2) + '\n');
    }
    return result.exitCode;
  } finally {
    await sandbox.destroy();
    await audit?.close();
  }
}

export const runCommand: CliCommand = parsedCommand({
  name: 'run',
  summary: 'run code in a fresh sandbox',
  usage: RUN_USAGE,
  parse: parseRunArgs,
  async run(command) {
    try {
      return await run(command);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      process.stderr.write(`airlock run: invalid network policy:\n${error.message}\n`);
      return 2;
    }
  },
});
