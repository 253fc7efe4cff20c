// Where the audit signing key lives, and reading keys given on the command line. The default
// key is a signer key file (signed-note.ts) at $AIRLOCK_AUDIT_KEY or
// ~/.config/airlock/audit.key, created (mode 0600) the first time a log needs it. Keep it
// somewhere the audited code cannot write: whoever holds it can sign checkpoints.

import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { generateSignerKey, parseSignerKey, parseVerifierKey, type NoteSigner, type NoteVerifier } from './signed-note.js';

export function defaultKeyPath(): string {
  const configured = process.env.AIRLOCK_AUDIT_KEY;
  if (configured !== undefined && configured !== '') return configured;
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'airlock', 'audit.key');
}

/** A key name from this machine's name (no spaces or '+'). */
export function defaultKeyName(): string {
  return `airlock-audit@${hostname().replace(/[\s+]/g, '-') || 'localhost'}`;
}

/** Writes a new signer key to `path` (refusing to overwrite one); returns it. */
export async function createSignerKey(path: string, name = defaultKeyName()): Promise<NoteSigner> {
  const text = generateSignerKey(name);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${text}\n`, { flag: 'wx', mode: 0o600 });
  await chmod(path, 0o600);
  return parseSignerKey(text);
}

/** The signer key at `path`, created there when missing and `create` is set. */
export async function loadSigner(path: string, options: { create?: boolean } = {}): Promise<NoteSigner | undefined> {
  try {
    return parseSignerKey(await readFile(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return options.create === true ? createSignerKey(path) : undefined;
  }
}

/**
 * A verifier from `given`: a verifier key (name+id+key), or a file holding a verifier or a
 * signer key.
 */
export async function loadVerifier(given: string): Promise<NoteVerifier> {
  if (/^[^\s+/]+\+[0-9a-f]{8}\+/.test(given)) return parseVerifierKey(given);
  const text = (await readFile(given, 'utf8')).trim();
  return parseVerifierKey(text.startsWith('PRIVATE+KEY+') ? parseSignerKey(text).verifierKey : text);
}
