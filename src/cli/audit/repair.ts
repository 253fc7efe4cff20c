// `airlock audit repair FILE`: removes a torn last line, and only that, with an event saying
// so; any other damage is reported and left alone (repair never rewrites history).

import { verifyAuditLog } from '../../host/audit/audit-log.js';
import { ChainLog } from '../../host/audit/chain-log.js';
import { defaultKeyPath, loadSigner } from '../../host/audit/keys.js';
import { parseSignerKey, parseVerifierKey } from '../../host/audit/signed-note.js';
import { readFile } from 'node:fs/promises';

export async function repairCommand(command: { file: string; key?: string }): Promise<number> {
  const signer = command.key !== undefined ? parseSignerKey(await readFile(command.key, 'utf8')) : await loadSigner(defaultKeyPath());
  const verifiers = signer === undefined ? [] : [parseVerifierKey(signer.verifierKey)];
  const before = await verifyAuditLog(command.file, { verifiers });
  if (before.ok) {
    process.stdout.write(`${command.file}: nothing to repair (the chain holds)\n`);
    return 0;
  }
  const problem = before.problem;
  if (problem?.kind !== 'torn' || problem.file !== command.file) {
    process.stderr.write(`airlock audit repair: ${command.file}: cannot repair: ${problem?.file}${problem?.line === undefined ? '' : `:${problem.line}`}: ${problem?.message}\n`);
    return 1;
  }
  const log = await ChainLog.open(command.file, { onTorn: 'repair', signer });
  const repaired = log.repaired;
  await log.close();
  if (repaired !== undefined) {
    process.stdout.write(`${command.file}: removed the torn line ${repaired.line} (${repaired.truncatedBytes} bytes, BLAKE3 ${repaired.truncatedHash}); appended an audit.repaired event\n`);
  }
  const after = await verifyAuditLog(command.file, { verifiers });
  if (!after.ok) {
    process.stderr.write(`airlock audit repair: ${command.file}: still broken after the repair: ${after.problem?.message}\n`);
    return 1;
  }
  return 0;
}
