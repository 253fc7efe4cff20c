// Signed checkpoints of a chain's head. A chain alone cannot see its tail cut off, nor a
// whole log rewritten with fresh hashes; a checkpoint, signed with a key the writer holds,
// states "the chain <id> had <size> lines and line <size-1> had hash <h>", and verify
// checks the log against every checkpoint it has.
//
// The note text is a C2SP tlog-checkpoint body whose "root hash" is the chain head:
//   airlock-audit/<chainId>\n<size>\n<base64 of the 32-byte BLAKE3 hash of line size-1>\n
// A chain's checkpoints are appended, one signed note after another, to FILE.checkpoints.

import { openNote, signNote, NoteError, type NoteSigner, type NoteVerifier } from './signed-note.js';

export const CHECKPOINT_ORIGIN_PREFIX = 'airlock-audit/';

export interface Checkpoint {
  chainId: string;
  /** Lines in the chain up to and including the head (the head is line n = size - 1). */
  size: number;
  /** Hash of line size - 1, hex. */
  hash: string;
}

export function checkpointText(checkpoint: Checkpoint): string {
  return `${CHECKPOINT_ORIGIN_PREFIX}${checkpoint.chainId}\n${checkpoint.size}\n${Buffer.from(checkpoint.hash, 'hex').toString('base64')}\n`;
}

export function signCheckpoint(checkpoint: Checkpoint, signer: NoteSigner): string {
  return signNote(checkpointText(checkpoint), signer);
}

function parseCheckpointText(text: string): Checkpoint {
  const [origin, size, hash] = text.split('\n');
  if (origin === undefined || !origin.startsWith(CHECKPOINT_ORIGIN_PREFIX)) throw new NoteError(`not an audit checkpoint (origin ${JSON.stringify(origin?.slice(0, 80))})`);
  const raw = Buffer.from(hash ?? '', 'base64');
  if (!/^[1-9]\d*$/.test(size ?? '') || raw.length !== 32) throw new NoteError('malformed checkpoint: size or hash');
  return { chainId: origin.slice(CHECKPOINT_ORIGIN_PREFIX.length), size: Number(size), hash: raw.toString('hex') };
}

export interface ReadCheckpoint extends Checkpoint {
  /** 1-based index of the note in the checkpoints file. */
  index: number;
  /** Whether a given verifier key's signature holds (false when no key was given). */
  authenticated: boolean;
}

export interface CheckpointFile {
  checkpoints: ReadCheckpoint[];
  /** Set when the last note is incomplete (a crash while it was written): it is ignored. */
  tornTail: boolean;
}

/**
 * Reads a checkpoints file: notes one after another. Without verifiers, checkpoints are
 * read unauthenticated (their positions still checked against the log). With verifiers, a
 * note no given key signed is an error: someone else wrote it.
 */
export function readCheckpoints(content: string, verifiers: NoteVerifier[]): CheckpointFile {
  const notes: string[] = [];
  let current: string[] = [];
  let inSignatures = false;
  const lines = content.split('\n');
  const complete = content.endsWith('\n');
  if (complete) lines.pop();
  for (const line of lines) {
    const signature = line.startsWith('\u2014 ');
    if (inSignatures && !signature) {
      notes.push(current.join('\n') + '\n');
      current = [];
      inSignatures = false;
    }
    if (line === '' && !inSignatures) inSignatures = true;
    current.push(line);
  }
  let tornTail = false;
  if (current.length > 0) {
    if (complete && inSignatures && (current[current.length - 1] as string).startsWith('\u2014 ')) notes.push(current.join('\n') + '\n');
    else tornTail = true;
  }
  const checkpoints = notes.map((note, i) => {
    const opened = openNote(note, verifiers);
    if (verifiers.length > 0 && opened.verifiedBy.length === 0) {
      throw new NoteError(`checkpoint ${i + 1} is not signed by the given key (signed by ${opened.unknownSigners.join(', ') || 'nobody'})`);
    }
    return { ...parseCheckpointText(opened.text), index: i + 1, authenticated: opened.verifiedBy.length > 0 };
  });
  return { checkpoints, tornTail };
}
