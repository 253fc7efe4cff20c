// The terminal's line editor (readline-like) as pure logic: it takes the bytes xterm.js
// reports for keys and returns what to draw plus what the user asked for (submit, Ctrl-C,
// Ctrl-D, Tab). It knows the terminal width so that redraws stay right when the line wraps.
//
// Keys: printable text, ←/→, Home/End (also Ctrl-A/Ctrl-E), Backspace, Delete, Ctrl-U
// (kill to start), Ctrl-K (kill to end), Ctrl-W (kill word), ↑/↓ (history), Ctrl-L, and
// Ctrl-R (reverse search of the history, as readline: type to search, Ctrl-R for an older
// match, Enter runs it, Esc or an arrow takes it for editing, Ctrl-G gives up).

import { History } from './history.js';

export type LineAction =
  | { kind: 'submit'; line: string }
  | { kind: 'interrupt' }
  | { kind: 'eof' }
  | { kind: 'complete' }
  | { kind: 'clear-screen' };

export interface FeedResult {
  /** Text to write to the terminal. */
  output: string;
  /** At most one action; input after it is returned in `rest`, unprocessed. */
  action?: LineAction;
  rest: string;
}

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** The displayed width of a prompt (escape sequences take no room). */
export function visibleWidth(text: string): number {
  return [...text.replace(ANSI, '')].length;
}

/** Splits input into keys: escape sequences stay whole. */
export function splitKeys(data: string): string[] {
  const keys: string[] = [];
  let i = 0;
  while (i < data.length) {
    if (data[i] === '\x1b' && data[i + 1] === '[') {
      let j = i + 2;
      while (j < data.length && !/[@-~]/.test(data[j] as string)) j += 1;
      keys.push(data.slice(i, j + 1));
      i = j + 1;
    } else if (data[i] === '\x1b' && data[i + 1] === 'O' && i + 2 < data.length) {
      keys.push(data.slice(i, i + 3));
      i += 3;
    } else {
      const code = data.codePointAt(i) as number;
      const char = String.fromCodePoint(code);
      keys.push(char);
      i += char.length;
    }
  }
  return keys;
}

interface Search {
  query: string;
  /** History index of the match shown, or entries.length for none yet. */
  index: number;
  failed: boolean;
  prompt: string;
  original: { buffer: string; cursor: number };
}

export class LineEditor {
  buffer = '';
  cursor = 0;
  private prompt = '';
  private promptWidth = 0;
  private search: Search | undefined;

  constructor(
    private cols: number,
    readonly history: History = new History(),
  ) {}

  resize(cols: number): void {
    this.cols = Math.max(1, cols);
  }

  /** Starts a new line with `prompt`; returns what to write. */
  begin(prompt: string): string {
    this.search = undefined;
    this.prompt = prompt;
    this.promptWidth = visibleWidth(prompt);
    this.buffer = '';
    this.cursor = 0;
    return prompt + this.wrapFix(this.promptWidth);
  }

  /** Replaces the line (history, completion) and returns the redraw. */
  setLine(line: string, cursor = line.length): string {
    const oldPosition = this.promptWidth + [...this.buffer.slice(0, this.cursor)].length;
    this.buffer = line;
    this.cursor = Math.max(0, Math.min(cursor, line.length));
    return this.redraw(oldPosition);
  }

  /** Whether a reverse search (Ctrl-R) is in progress. */
  get searching(): boolean {
    return this.search !== undefined;
  }

  feed(data: string): FeedResult {
    let output = '';
    const keys = splitKeys(data);
    for (let k = 0; k < keys.length; k += 1) {
      const key = keys[k] as string;
      const rest = (): string => keys.slice(k + 1).join('');
      if (this.search !== undefined) {
        const handled = this.searchKey(key);
        output += handled.output;
        if (handled.consumed) continue;
      }
      switch (key) {
        case '\x12':
          output += this.startSearch();
          break;
        case '\r':
        case '\n': {
          const line = this.buffer;
          output += this.moveTo(this.buffer.length) + '\r\n';
          this.history.add(line);
          this.buffer = '';
          this.cursor = 0;
          // A CRLF pair pasted in counts once.
          const remaining = key === '\r' && keys[k + 1] === '\n' ? keys.slice(k + 2).join('') : rest();
          return { output, action: { kind: 'submit', line }, rest: remaining };
        }
        case '\x03':
          output += this.moveTo(this.buffer.length) + '^C\r\n';
          this.buffer = '';
          this.cursor = 0;
          return { output, action: { kind: 'interrupt' }, rest: rest() };
        case '\x04':
          if (this.buffer === '') return { output: output + '\r\n', action: { kind: 'eof' }, rest: rest() };
          output += this.edit(this.buffer.slice(0, this.cursor) + this.buffer.slice(this.cursor + 1), this.cursor);
          break;
        case '\t':
          return { output, action: { kind: 'complete' }, rest: rest() };
        case '\x0c':
          return { output, action: { kind: 'clear-screen' }, rest: rest() };
        case '\x7f':
        case '\b':
          if (this.cursor > 0) output += this.edit(this.buffer.slice(0, this.cursor - 1) + this.buffer.slice(this.cursor), this.cursor - 1);
          break;
        case '\x1b[3~':
          if (this.cursor < this.buffer.length) output += this.edit(this.buffer.slice(0, this.cursor) + this.buffer.slice(this.cursor + 1), this.cursor);
          break;
        case '\x1b[D':
          if (this.cursor > 0) output += this.moveTo(this.cursor - 1);
          break;
        case '\x1b[C':
          if (this.cursor < this.buffer.length) output += this.moveTo(this.cursor + 1);
          break;
        case '\x1b[H':
        case '\x1bOH':
        case '\x01':
          output += this.moveTo(0);
          break;
        case '\x1b[F':
        case '\x1bOF':
        case '\x05':
          output += this.moveTo(this.buffer.length);
          break;
        case '\x15':
          output += this.edit(this.buffer.slice(this.cursor), 0);
          break;
        case '\x0b':
          output += this.edit(this.buffer.slice(0, this.cursor), this.cursor);
          break;
        case '\x17': {
          const head = this.buffer.slice(0, this.cursor).replace(/\S+\s*$/, '');
          output += this.edit(head + this.buffer.slice(this.cursor), head.length);
          break;
        }
        case '\x1b[A': {
          const older = this.history.previous(this.buffer);
          if (older !== undefined) output += this.setLine(older);
          break;
        }
        case '\x1b[B': {
          const newer = this.history.next();
          if (newer !== undefined) output += this.setLine(newer);
          break;
        }
        default:
          if (key.length > 0 && key >= ' ' && !key.startsWith('\x1b')) output += this.insert(key);
      }
    }
    return { output, rest: '' };
  }

  private startSearch(): string {
    const history = this.history.all;
    this.search = { query: '', index: history.length, failed: false, prompt: this.prompt, original: { buffer: this.buffer, cursor: this.cursor } };
    return this.showSearch();
  }

  /** Finds `query` in entries older than or at `from`, newest first. */
  private findOlder(query: string, from: number): number | undefined {
    const history = this.history.all;
    for (let i = Math.min(from, history.length - 1); i >= 0; i -= 1) if ((history[i] as string).includes(query)) return i;
    return undefined;
  }

  private showSearch(): string {
    const search = this.search as Search;
    const match = search.index < this.history.all.length ? (this.history.all[search.index] as string) : search.original.buffer;
    const oldPosition = this.position(this.cursor);
    this.prompt = `(${search.failed ? 'failed ' : ''}reverse-i-search)\`${search.query}': `;
    this.promptWidth = visibleWidth(this.prompt);
    this.buffer = match;
    const at = search.query === '' ? -1 : match.indexOf(search.query);
    this.cursor = at < 0 ? match.length : at;
    return this.redraw(oldPosition);
  }

  /** Ends the search, keeping the match (or the original line) with the normal prompt. */
  private endSearch(keep: boolean): string {
    const search = this.search as Search;
    this.search = undefined;
    const oldPosition = this.position(this.cursor);
    this.prompt = search.prompt;
    this.promptWidth = visibleWidth(this.prompt);
    if (!keep) {
      this.buffer = search.original.buffer;
      this.cursor = search.original.cursor;
    }
    return this.redraw(oldPosition);
  }

  /** A key during the search: consumed, or (after ending it) left for normal handling. */
  private searchKey(key: string): { output: string; consumed: boolean } {
    const search = this.search as Search;
    if (key === '\x12') {
      const older = search.query === '' ? undefined : this.findOlder(search.query, search.index - 1);
      if (older !== undefined) search.index = older;
      search.failed = search.query !== '' && older === undefined;
      return { output: this.showSearch(), consumed: true };
    }
    if (key === '\x7f' || key === '\b') {
      search.query = [...search.query].slice(0, -1).join('');
      const found = search.query === '' ? undefined : this.findOlder(search.query, this.history.all.length - 1);
      search.index = found ?? this.history.all.length;
      search.failed = false;
      return { output: this.showSearch(), consumed: true };
    }
    if (key === '\x07') return { output: this.endSearch(false), consumed: true };
    if (key === '\x1b') return { output: this.endSearch(true), consumed: true };
    if (key.length > 0 && key >= ' ' && !key.startsWith('\x1b')) {
      search.query += key;
      const found = this.findOlder(search.query, search.index);
      if (found !== undefined) search.index = found;
      search.failed = found === undefined;
      return { output: this.showSearch(), consumed: true };
    }
    // Enter, arrows, Ctrl-C and other keys: the match becomes the line, then the key acts.
    return { output: this.endSearch(key !== '\x03'), consumed: false };
  }

  private insert(text: string): string {
    const atEnd = this.cursor === this.buffer.length;
    const oldPosition = this.position(this.cursor);
    this.buffer = this.buffer.slice(0, this.cursor) + text + this.buffer.slice(this.cursor);
    this.cursor += text.length;
    // The common case (typing at the end) writes just the character: lowest echo latency.
    if (atEnd) return text + this.wrapFix(this.position(this.cursor));
    return this.redraw(oldPosition);
  }

  private edit(buffer: string, cursor: number): string {
    const oldPosition = this.position(this.cursor);
    this.buffer = buffer;
    this.cursor = cursor;
    return this.redraw(oldPosition);
  }

  /** Screen offset (from the prompt's start) of buffer index `index`. */
  private position(index: number): number {
    return this.promptWidth + [...this.buffer.slice(0, index)].length;
  }

  /** xterm leaves the cursor in the last column after filling it; step onto the next row. */
  private wrapFix(position: number): string {
    return position > 0 && position % this.cols === 0 ? ' \r' : '';
  }

  private moveTo(index: number): string {
    const from = this.position(this.cursor);
    this.cursor = index;
    return this.travel(from, this.position(index));
  }

  private travel(from: number, to: number): string {
    const rows = Math.floor(to / this.cols) - Math.floor(from / this.cols);
    let out = rows < 0 ? `\x1b[${-rows}A` : rows > 0 ? `\x1b[${rows}B` : '';
    const col = to % this.cols;
    out += col === 0 ? '\r' : `\r\x1b[${col}C`;
    return out;
  }

  /** Redraws prompt and line from the top row of the line, leaving the cursor in place. */
  private redraw(oldPosition: number): string {
    const up = Math.floor(oldPosition / this.cols);
    let out = (up > 0 ? `\x1b[${up}A` : '') + '\r\x1b[J' + this.prompt + this.buffer;
    const end = this.position(this.buffer.length);
    out += this.wrapFix(end);
    out += this.travel(end, this.position(this.cursor));
    return out;
  }
}
