// `airlock audit`: verify, tail, query and repair audit logs; make a signing key.

import { defaultKeyPath, defaultKeyName, createSignerKey } from '../../host/audit/keys.js';
import { parsedCommand, type CliCommand } from '../command.js';
import { AUDIT_USAGE, parseAuditArgs } from './args.js';
import { queryCommand, tailCommand } from './read.js';
import { repairCommand } from './repair.js';
import { verifyCommand } from './verify.js';

/** Ends on SIGINT/SIGTERM (tail -f), leaving the handlers as they were. */
function untilInterrupted(): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    done: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

export const auditCommand: CliCommand = parsedCommand({
  name: 'audit',
  summary: 'verify, tail, query and repair audit logs',
  usage: AUDIT_USAGE,
  parse: parseAuditArgs,
  async run(command) {
    switch (command.kind) {
      case 'verify':
        return verifyCommand(command);
      case 'query':
        return queryCommand(command);
      case 'repair':
        return repairCommand(command);
      case 'tail': {
        const interrupt = untilInterrupted();
        try {
          return await tailCommand(command, interrupt.signal);
        } finally {
          interrupt.done();
        }
      }
      case 'keygen': {
        const path = command.out ?? defaultKeyPath();
        const signer = await createSignerKey(path, command.name ?? defaultKeyName()).catch((error: NodeJS.ErrnoException) => {
          throw new Error(error.code === 'EEXIST' ? `${path}: a key is already there (it is not overwritten)` : error.message);
        });
        process.stderr.write(`airlock audit: wrote the signing key ${path}; its verifier key:\n`);
        process.stdout.write(`${signer.verifierKey}\n`);
        return 0;
      }
    }
  },
});
