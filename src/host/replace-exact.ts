// The one rule of an exact-text edit (MCP's edit_file, the agent's edit tool): the old text
// must occur exactly once (or, asked for, every time); otherwise the edit fails naming why
// and the caller changes nothing.

/** An edit that cannot be made; its message is meant for the one who asked (a model, a client). */
export class ReplaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplaceError';
  }
}

export function replaceExact(content: string, old: string, replacement: string, all = false): string {
  if (old === '') throw new ReplaceError('old_string is empty: name the exact text to replace');
  const first = content.indexOf(old);
  if (first < 0) throw new ReplaceError('old_string was not found in the file (it must match exactly, whitespace included)');
  if (all) return content.split(old).join(replacement);
  if (content.indexOf(old, first + old.length) >= 0) throw new ReplaceError(`old_string occurs ${content.split(old).length - 1} times in the file: give more surrounding text so it is unique, or set replace_all`);
  return content.slice(0, first) + replacement + content.slice(first + old.length);
}
