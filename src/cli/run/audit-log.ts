// `airlock run --audit FILE`: the run's audit events go to FILE through the file sink, its
// checkpoints signed with the given key file or the default audit key (made if missing).

import { readFile } from 'node:fs/promises';
import { AuditFileSink } from '../../host/audit/file-sink.js';
import { defaultKeyPath, loadSigner } from '../../host/audit/keys.js';
import { parseSignerKey } from '../../host/audit/signed-note.js';

export async function openAuditLog(path: string, keyFile: string | undefined): Promise<AuditFileSink> {
  const signer = keyFile !== undefined ? parseSignerKey(await readFile(keyFile, 'utf8')) : await loadSigner(defaultKeyPath(), { create: true });
  return AuditFileSink.open(path, { signer });
}
