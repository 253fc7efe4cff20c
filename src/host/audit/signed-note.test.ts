// Signed notes interoperate with the format's reference implementation: the signer and
// verifier keys and the signed note of its published example (golang.org/x/mod/sumdb/note,
// ExampleSign / ExampleOpen) are read, reproduced and checked here.

import { describe, expect, it } from 'vitest';
import { generateSignerKey, openNote, parseSignerKey, parseVerifierKey, signNote } from './signed-note.js';

const SIGNER_KEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const VERIFIER_KEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const NOTE = `${TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

describe('signed notes (C2SP signed-note)', () => {
  it("signs exactly as the reference implementation's example", () => {
    const signer = parseSignerKey(SIGNER_KEY);
    expect(signer.verifierKey).toBe(VERIFIER_KEY);
    expect(signNote(TEXT, signer)).toBe(NOTE);
  });

  it("opens the reference example's note with its verifier key", () => {
    expect(openNote(NOTE, [parseVerifierKey(VERIFIER_KEY)])).toEqual({ text: TEXT, verifiedBy: ['PeterNeumann'], unknownSigners: [] });
  });

  it('refuses an altered note and names unknown signers', () => {
    const verifier = parseVerifierKey(VERIFIER_KEY);
    expect(() => openNote(NOTE.replace('cryptography', 'cryptographY'), [verifier])).toThrow('does not hold');
    const other = parseVerifierKey(parseSignerKey(generateSignerKey('someone-else')).verifierKey);
    expect(openNote(NOTE, [other])).toMatchObject({ verifiedBy: [], unknownSigners: ['PeterNeumann'] });
  });

  it('refuses keys with a wrong ID or name', () => {
    expect(() => parseVerifierKey(VERIFIER_KEY.replace('c74f20a3', 'c74f20a4'))).toThrow('key ID does not match');
    expect(() => generateSignerKey('has space')).toThrow('without spaces');
  });
});
