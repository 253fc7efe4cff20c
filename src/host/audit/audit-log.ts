// The audit log on disk: a chain (chain-log.ts) whose events are audit events
// (src/protocol/audit). Verifying one checks the chain and the checkpoints, and with
// `schema`, line by line, that each event is one the schema knows (no field it does not
// name: a check on the writer, slower than the chain's own).

import { validateAuditEvent } from '../../protocol/audit/validate.js';
import { chainFiles } from './chain-files.js';
import type { NoteVerifier } from './signed-note.js';
import { verifyChain, type VerifyReport } from './verify-chain.js';

const decoder = new TextDecoder();

/** Why the event JSON `json` is not a valid audit event, or undefined. */
export function auditEventProblem(json: Uint8Array): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(json));
  } catch {
    return 'the event is not valid JSON';
  }
  const result = validateAuditEvent(value);
  return result.ok ? undefined : result.error;
}

/**
 * Verifies the audit log written to `path`: its rotated segments (FILE.1, FILE.2, …) and
 * FILE in order, its checkpoints (FILE.checkpoints), and with `schema` every event against
 * the schema.
 */
export async function verifyAuditLog(path: string, options: { verifiers?: NoteVerifier[]; files?: string[]; schema?: boolean } = {}): Promise<VerifyReport> {
  return verifyChain(options.files ?? (await chainFiles(path)), { verifiers: options.verifiers, checkEvent: options.schema === true ? auditEventProblem : undefined });
}
