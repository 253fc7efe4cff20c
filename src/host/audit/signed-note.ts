// Signed notes (C2SP signed-note) with Ed25519 from node:crypto: the envelope of the audit
// chain's checkpoints (checkpoint.ts).
//
//   note      = text "\n" signature-line+      (text: UTF-8, ends with "\n", no "\n\n")
//   signature = "— " name " " base64(key ID (4 bytes) || Ed25519 signature of text (64 bytes)) "\n"
//   key ID    = the first 4 bytes of SHA-256(name || "\n" || 0x01 || 32-byte public key)
//
// Keys are written the way the note format's reference implementation writes them:
//   verifier key = name "+" hex(key ID) "+" base64(0x01 || public key)
//   signer key   = "PRIVATE+KEY+" name "+" hex(key ID) "+" base64(0x01 || 32-byte seed)

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

const ED25519 = 0x01;
/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** SPKI DER prefix of an Ed25519 public key; the 32-byte key follows. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const DASH = '\u2014';

export class NoteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoteError';
  }
}

export interface NoteSigner {
  name: string;
  keyId: Buffer;
  privateKey: KeyObject;
  /** This signer's verifier key (to give to whoever checks the notes). */
  verifierKey: string;
}

export interface NoteVerifier {
  name: string;
  keyId: Buffer;
  publicKey: KeyObject;
}

function checkName(name: string): void {
  if (name.length === 0 || /[\s+]/.test(name)) throw new NoteError(`key name ${JSON.stringify(name)} must be non-empty, without spaces or '+'`);
}

/** Splits at the first `count - 1` plus signs: the last part (base64) may hold more of them. */
function splitKey(text: string, count: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (parts.length < count - 1) {
    const plus = rest.indexOf('+');
    if (plus < 0) break;
    parts.push(rest.slice(0, plus));
    rest = rest.slice(plus + 1);
  }
  parts.push(rest);
  return parts;
}

function keyId(name: string, publicKey: Buffer): Buffer {
  return createHash('sha256').update(name).update('\n').update(Buffer.from([ED25519])).update(publicKey).digest().subarray(0, 4);
}

function rawPublicKey(key: KeyObject): Buffer {
  const x = key.export({ format: 'jwk' }).x;
  if (x === undefined) throw new NoteError('not an Ed25519 key');
  return Buffer.from(x, 'base64url');
}

/** A new Ed25519 signer key, in the text form above. */
export function generateSignerKey(name: string): string {
  checkName(name);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d as string, 'base64url');
  const pub = rawPublicKey(publicKey);
  return `PRIVATE+KEY+${name}+${keyId(name, pub).toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), seed]).toString('base64')}`;
}

/** Reads a signer key (the text form above). */
export function parseSignerKey(text: string): NoteSigner {
  const parts = splitKey(text, 5);
  if (parts.length !== 5 || parts[0] !== 'PRIVATE' || parts[1] !== 'KEY') throw new NoteError('not a signer key (PRIVATE+KEY+name+id+key)');
  const [, , name, id, data] = parts as [string, string, string, string, string];
  checkName(name);
  const raw = Buffer.from(data, 'base64');
  if (raw.length !== 33 || raw[0] !== ED25519) throw new NoteError('the signer key is not an Ed25519 key');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, raw.subarray(1)]), format: 'der', type: 'pkcs8' });
  const pub = rawPublicKey(createPublicKey(privateKey));
  const computed = keyId(name, pub);
  if (computed.toString('hex') !== id) throw new NoteError('the signer key ID does not match its key');
  return { name, keyId: computed, privateKey, verifierKey: `${name}+${id}+${Buffer.concat([Buffer.from([ED25519]), pub]).toString('base64')}` };
}

/** Reads a verifier key (name+id+base64). */
export function parseVerifierKey(text: string): NoteVerifier {
  const parts = splitKey(text, 3);
  if (parts.length !== 3) throw new NoteError('not a verifier key (name+id+key)');
  const [name, id, data] = parts as [string, string, string];
  checkName(name);
  const raw = Buffer.from(data, 'base64');
  if (raw.length !== 33 || raw[0] !== ED25519) throw new NoteError('the verifier key is not an Ed25519 key');
  const pub = raw.subarray(1);
  const computed = keyId(name, pub);
  if (computed.toString('hex') !== id) throw new NoteError('the verifier key ID does not match its key');
  return { name, keyId: computed, publicKey: createPublicKey({ key: Buffer.concat([SPKI_PREFIX, pub]), format: 'der', type: 'spki' }) };
}

/** Signs `text` (which must end with a newline and hold no blank line) into a note. */
export function signNote(text: string, signer: NoteSigner): string {
  if (!text.endsWith('\n') || text.includes('\n\n')) throw new NoteError('a note text must end with a newline and hold no blank line');
  const signature = sign(null, Buffer.from(text, 'utf8'), signer.privateKey);
  return `${text}\n${DASH} ${signer.name} ${Buffer.concat([signer.keyId, signature]).toString('base64')}\n`;
}

export interface OpenedNote {
  text: string;
  /** Names of the given verifiers whose signatures hold. */
  verifiedBy: string[];
  /** Names on signature lines no given verifier knows. */
  unknownSigners: string[];
}

/**
 * Splits a note into its text and signatures and checks the signatures of `verifiers`.
 * A signature by a known key that does not hold is an error (a forged or altered note).
 */
export function openNote(note: string, verifiers: NoteVerifier[]): OpenedNote {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new NoteError('malformed note: no blank line before the signatures');
  const text = note.slice(0, split + 1);
  const verifiedBy: string[] = [];
  const unknownSigners: string[] = [];
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (match === null) throw new NoteError(`malformed signature line: ${JSON.stringify(line.slice(0, 80))}`);
    const [, name, data] = match as unknown as [string, string, string];
    const raw = Buffer.from(data, 'base64');
    const verifier = verifiers.find((v) => v.name === name && raw.length >= 4 && v.keyId.equals(raw.subarray(0, 4)));
    if (verifier === undefined) {
      unknownSigners.push(name);
      continue;
    }
    if (raw.length !== 68 || !verify(null, Buffer.from(text, 'utf8'), verifier.publicKey, raw.subarray(4))) {
      throw new NoteError(`the signature of ${name} does not hold: the note was altered or forged`);
    }
    verifiedBy.push(name);
  }
  return { text, verifiedBy, unknownSigners };
}
