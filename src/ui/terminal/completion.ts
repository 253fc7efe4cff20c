// Tab completion of the word under the cursor: command names in command position (first
// word, after | ; & && || or an opening parenthesis), paths elsewhere or when the word has a
// '/'. Pure logic: the directory listing is passed in, so it is unit-tested without a sandbox.

export interface CompletionEntry {
  name: string;
  kind: string;
}

export interface CompletionContext {
  /** Command names (tools and shell builtins). */
  commands: readonly string[];
  /** Lists a directory (absolute or relative to the shell's cwd); rejects if it is not one. */
  listDir(path: string): Promise<CompletionEntry[]>;
}

export interface Completion {
  /** The new line and cursor. */
  line: string;
  cursor: number;
  /** Candidates to show when several remain and nothing more could be added. */
  candidates: string[];
}

const WORD_BREAK = /[\s|;&<>()]/;
const COMMAND_SEPARATORS = /(^|[|;&(]|&&|\|\|)\s*$/;

function commonPrefix(words: readonly string[]): string {
  if (words.length === 0) return '';
  let prefix = words[0] as string;
  for (const word of words) {
    let i = 0;
    while (i < prefix.length && i < word.length && prefix[i] === word[i]) i += 1;
    prefix = prefix.slice(0, i);
  }
  return prefix;
}

/** Backslash-escapes characters the shell would otherwise split or interpret. */
export function escapeWord(word: string): string {
  return word.replace(/([\s'"\\$`|;&<>()*?[\]!#~{}])/g, '\\$1');
}

export async function complete(line: string, cursor: number, context: CompletionContext): Promise<Completion> {
  let start = cursor;
  while (start > 0 && !WORD_BREAK.test(line[start - 1] as string)) start -= 1;
  const word = line.slice(start, cursor);
  const before = line.slice(0, start);
  const commandPosition = COMMAND_SEPARATORS.test(before) && !word.includes('/');

  let candidates: string[];
  let stem: string;
  let finished: (candidate: string) => string;
  if (commandPosition) {
    stem = word;
    candidates = [...new Set(context.commands.filter((c) => c.startsWith(word)))].sort();
    finished = (c) => `${c} `;
  } else {
    const slash = word.lastIndexOf('/');
    const dir = slash < 0 ? '' : word.slice(0, slash + 1);
    stem = word.slice(slash + 1);
    let entries: CompletionEntry[];
    try {
      entries = await context.listDir(dir === '' ? '.' : dir);
    } catch {
      entries = [];
    }
    const visible = entries.filter((e) => e.name.startsWith(stem) && (stem.startsWith('.') || !e.name.startsWith('.')));
    const kinds = new Map(visible.map((e) => [e.name, e.kind]));
    candidates = visible.map((e) => e.name).sort();
    finished = (c) => (kinds.get(c) === 'dir' ? `${dir}${escapeWord(c)}/` : `${dir}${escapeWord(c)} `);
    const prefixOnly = (c: string): string => `${dir}${escapeWord(c)}`;
    if (candidates.length > 1) {
      const prefix = commonPrefix(candidates);
      return replace(line, start, cursor, prefix.length > stem.length ? prefixOnly(prefix) : word, prefix.length > stem.length ? [] : candidates);
    }
  }
  if (candidates.length === 0) return { line, cursor, candidates: [] };
  if (candidates.length === 1) return replace(line, start, cursor, finished(candidates[0] as string), []);
  const prefix = commonPrefix(candidates);
  if (prefix.length > stem.length) return replace(line, start, cursor, prefix, []);
  return { line, cursor, candidates };
}

function replace(line: string, start: number, end: number, text: string, candidates: string[]): Completion {
  return { line: line.slice(0, start) + text + line.slice(end), cursor: start + text.length, candidates };
}
