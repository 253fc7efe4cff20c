// `airlock audit verify FILE...`: each log's chain, events and checkpoints, end to end.

import { verifyAuditLog } from '../../host/audit/audit-log.js';
import { defaultKeyPath, loadSigner, loadVerifier } from '../../host/audit/keys.js';
import { parseVerifierKey, type NoteVerifier } from '../../host/audit/signed-note.js';
import type { VerifyReport } from '../../host/audit/verify-chain.js';

/** The verifiers for `key` (a key or key file), or the default key's when none is given. */
export async function verifiersFor(key: string | undefined): Promise<NoteVerifier[]> {
  if (key !== undefined) return [await loadVerifier(key)];
  const signer = await loadSigner(defaultKeyPath());
  return signer === undefined ? [] : [parseVerifierKey(signer.verifierKey)];
}

function describe(file: string, report: VerifyReport, verifiers: NoteVerifier[]): string {
  if (report.problem !== undefined) {
    const where = report.problem.line === undefined ? report.problem.file : `${report.problem.file}:${report.problem.line}`;
    return `${file}: FAILED: ${where}: ${report.problem.message}\n`;
  }
  const range = report.lines === 0 ? 'empty' : `${report.lines} lines (n=${report.firstN ?? 0}…${report.head.next - 1}) in ${report.files.length} file${report.files.length === 1 ? '' : 's'}`;
  const checks = report.checkpoints;
  let signed: string;
  if (checks.checked === 0) signed = 'no checkpoint covers it';
  else if (checks.authenticated) signed = `${checks.checked === 1 ? '1 signed checkpoint holds' : `${checks.checked} signed checkpoints hold`} (key ${verifiers.map((v) => v.name).join(', ')})`;
  else signed = `${checks.checked === 1 ? '1 checkpoint holds' : `${checks.checked} checkpoints hold`} but ${checks.checked === 1 ? 'was' : 'were'} NOT authenticated (give --key)`;
  const notes = [
    report.firstN !== undefined && report.firstN > 0 ? `starts at n=${report.firstN}: earlier segments not given` : '',
    checks.tornTail ? 'the last checkpoint is torn (ignored)' : '',
  ].filter((note) => note !== '');
  return `${file}: ok: ${range}; ${signed}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}\n`;
}

export async function verifyCommand(command: { files: string[]; key?: string; json: boolean; schema: boolean }): Promise<number> {
  const verifiers = await verifiersFor(command.key);
  let failed = false;
  const reports: Array<VerifyReport & { log: string }> = [];
  for (const file of command.files) {
    const report = await verifyAuditLog(file, { verifiers, schema: command.schema });
    failed ||= !report.ok;
    if (command.json) reports.push({ log: file, ...report });
    else process.stdout.write(describe(file, report, verifiers));
  }
  if (command.json) process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
  return failed ? 1 : 0;
}
