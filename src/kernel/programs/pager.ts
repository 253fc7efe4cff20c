// less and more: a pager over the terminal. Its keys come from /dev/tty in raw mode, so it
// pages a pipe as well as files (`ls -l | less`). When stdout is not a terminal both copy
// their input, as the real ones do.
//
// less: the whole screen (the alternate screen, left as it was on quit): space/b/d/u/g/G,
// arrows, PgUp/PgDn, Enter/j/k, /pattern and ?pattern, n/N, q. more: pages down the
// scrollback with a --More--(NN%) prompt and ends at the end of its input.

import { PAGER_LIMITS } from '../../protocol/limits.js';
import type { Syscalls } from '../sys/syscalls.js';
import { AT_FDCWD } from '../sys/syscalls.js';
import { FILETYPE } from '../fd/description.js';
import { errorText, kernelProgram, readAll, writeText } from './program-io.js';
import { ALT_SCREEN_OFF, ALT_SCREEN_ON, REVERSE, decodeKeys, openScreen, plain, wrapLine, type Key, type Screen } from './screen.js';
import { concatBytes } from '../../protocol/bytes.js';

const decoder = new TextDecoder();

export interface PagerOptions {
  /** Shown in the first prompt (less) — a file name or a manual page's title. */
  title?: string;
  chop?: boolean;
  lineNumbers?: boolean;
  ignoreCase?: boolean;
  /** less -F: print and quit when the text fits on one screen. */
  quitIfOneScreen?: boolean;
}

/** Reads `fd` to its end, up to the pager's limit (the rest is dropped, and said so). */
async function readCapped(sys: Syscalls, fd: number): Promise<{ text: string; truncated: boolean }> {
  const bytes = await readAllCapped(sys, fd, PAGER_LIMITS.inputBytes);
  return { text: decoder.decode(bytes.data), truncated: bytes.truncated };
}

async function readAllCapped(sys: Syscalls, fd: number, max: number): Promise<{ data: Uint8Array; truncated: boolean }> {
  if (fd !== 0) {
    const size = Number(sys.fstat(fd).size);
    if (size > max) {
      const data = await sys.complete(sys.pread(fd, max, 0));
      return { data, truncated: true };
    }
    return { data: await readAll(sys, fd), truncated: false };
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const part = (await sys.complete(sys.read(fd, 65536))).slice();
    if (part.length === 0) break;
    if (total + part.length > max) {
      parts.push(part.subarray(0, max - total));
      total = max;
      // The writer is not left blocked on a full pipe: the rest is read and dropped.
      while ((await sys.complete(sys.read(fd, 65536))).length > 0);
      return { data: concatBytes(parts, total), truncated: true };
    }
    parts.push(part);
    total += part.length;
  }
  return { data: concatBytes(parts, total), truncated: false };
}

const truncationNote = (): string => `[the pager shows the first ${PAGER_LIMITS.inputBytes / 1024 / 1024} MiB of its input (PAGER_LIMITS.inputBytes); the rest was not read]\n`;

/** The text of the operands (files, or stdin for none or `-`), with more's headers between files. */
async function gather(sys: Syscalls, tool: string, files: string[], headers: boolean): Promise<{ text: string; failed: boolean } | undefined> {
  if (files.length === 0) {
    if (sys.isatty(0)) return undefined;
    const { text, truncated } = await readCapped(sys, 0);
    return { text: truncated ? text + truncationNote() : text, failed: false };
  }
  let text = '';
  let failed = false;
  for (const file of files) {
    let content: string;
    try {
      if (file === '-') content = (await readCapped(sys, 0)).text;
      else {
        const fd = sys.openat(AT_FDCWD, file, { read: true });
        try {
          if (sys.fstat(fd).filetype === FILETYPE.DIRECTORY) {
            await writeText(sys, 2, tool === 'more' ? `\n*** ${file}: directory ***\n\n` : `${file} is a directory\n`);
            failed = true;
            continue;
          }
          const read = await readCapped(sys, fd);
          content = read.truncated ? read.text + truncationNote() : read.text;
        } finally {
          sys.close(fd);
        }
      }
    } catch (error) {
      await writeText(sys, 2, tool === 'more' ? `more: cannot open ${file}: ${errorText(error)}\n` : `${file}: ${errorText(error)}\n`);
      failed = true;
      continue;
    }
    if (headers && files.length > 1) text += `::::::::::::::\n${file}\n::::::::::::::\n`;
    text += content;
  }
  return { text, failed };
}

function parseArgs(tool: string, args: string[]): { files: string[]; options: PagerOptions } | string {
  const options: PagerOptions = {};
  const files: string[] = [];
  let operands = false;
  for (const arg of args) {
    if (operands || arg === '-' || !arg.startsWith('-')) {
      files.push(arg);
      continue;
    }
    if (arg === '--') {
      operands = true;
      continue;
    }
    if (arg === '--help') return 'help';
    for (const letter of arg.slice(1)) {
      if (tool === 'less' && letter === 'S') options.chop = true;
      else if (tool === 'less' && letter === 'N') options.lineNumbers = true;
      else if (tool === 'less' && (letter === 'i' || letter === 'I')) options.ignoreCase = true;
      else if (tool === 'less' && letter === 'F') options.quitIfOneScreen = true;
      // Accepted and already how this pager behaves: raw colour escapes, no init strings.
      else if (tool === 'less' && 'RrXK'.includes(letter)) continue;
      else return tool === 'less' ? `There is no -${letter} option ("less --help" for help)` : `more: unknown option -- '${letter}'\nTry 'more --help' for more information.`;
    }
  }
  return { files, options };
}

const LESS_HELP = `Usage: less [-FNSiR] [FILE]...
A pager: shows FILE (or its input) a screen at a time.

  SPACE f PgDn   forward one screen      b PgUp       backward one screen
  ENTER j Down   forward one line        k y Up       backward one line
  d              forward half a screen   u            backward half a screen
  g < Home       first line              G > End      last line
  /PATTERN       search forward          ?PATTERN     search backward
  n              repeat the search       N            repeat it the other way
  q Q ZZ Ctrl-C  quit

  -F  quit when the text fits on one screen    -N  line numbers
  -S  chop long lines instead of wrapping      -i  searches ignore case
`;

const MORE_HELP = `Usage: more [FILE]...
A pager: shows FILE (or its input) a screen at a time down the terminal, and ends at its end.

  SPACE f     next screen       ENTER j     next line        d    next half screen
  b           previous screen   /PATTERN    search forward   n    repeat the search
  q Q Ctrl-C  quit
`;

export function pagerProgram(tool: 'less' | 'more') {
  return kernelProgram(tool, async (sys, argv) => {
    const parsed = parseArgs(tool, argv.slice(1));
    if (parsed === 'help') return (await writeText(sys, 1, tool === 'less' ? LESS_HELP : MORE_HELP), 0);
    if (typeof parsed === 'string') return (await writeText(sys, 2, `${parsed}\n`), 1);
    const input = await gather(sys, tool, parsed.files, tool === 'more' || !sys.isatty(1));
    if (input === undefined) {
      await writeText(sys, 2, tool === 'less' ? 'Missing filename ("less --help" for help)\n' : "more: bad usage\nTry 'more --help' for more information.\n");
      return 1;
    }
    if (!sys.isatty(1)) {
      await writeText(sys, 1, input.text);
      return input.failed ? 1 : 0;
    }
    if (input.text === '' && input.failed) return 1;
    const title = parsed.files.length === 1 && parsed.files[0] !== '-' ? parsed.files[0] : undefined;
    await page(sys, tool, input.text, { ...parsed.options, title });
    return input.failed ? 1 : 0;
  });
}

/** Pages `text` on the terminal (stdout must be it). Used by less, more and man. */
export async function page(sys: Syscalls, tool: 'less' | 'more', text: string, options: PagerOptions = {}): Promise<void> {
  let screen: Screen;
  try {
    screen = openScreen(sys);
  } catch {
    // No terminal to read keys from: show it all.
    await writeText(sys, 1, text);
    return;
  }
  try {
    const pager = tool === 'less' ? new Less(sys, screen, text, options) : new More(sys, screen, text, {});
    await pager.run();
  } finally {
    screen.restore();
  }
}

/** Logical lines of the text (a final newline does not start another). */
function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A search pattern: a regular expression, or the text itself when it is not a valid one. */
function compile(pattern: string, ignoreCase: boolean): RegExp {
  const flags = ignoreCase ? 'gi' : 'g';
  try {
    return new RegExp(pattern, flags);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
  }
}

abstract class Pager {
  protected readonly rows: string[] = [];
  protected readonly height: number;
  protected pattern: RegExp | undefined;
  private pending: Key[] = [];

  constructor(
    protected readonly sys: Syscalls,
    protected readonly screen: Screen,
    text: string,
    options: PagerOptions,
  ) {
    this.height = Math.max(1, screen.size.rows - 1);
    const numbers = options.lineNumbers === true;
    const cols = Math.max(1, screen.size.cols - (numbers ? 8 : 0));
    linesOf(text).forEach((line, index) => {
      wrapLine(line, cols, options.chop === true).forEach((row, part) => {
        this.rows.push(numbers ? `${part === 0 ? String(index + 1).padStart(7) : ''.padStart(7)} ${row}` : row);
      });
    });
  }

  protected write(text: string): Promise<void> {
    return writeText(this.sys, 1, text);
  }

  /** The next key typed; undefined when the terminal's input ended. */
  protected async key(): Promise<Key | undefined> {
    while (this.pending.length === 0) {
      const bytes = await this.sys.complete(this.sys.read(this.screen.fd, 256));
      if (bytes.length === 0) return undefined;
      this.pending = decodeKeys(decoder.decode(bytes.slice()));
    }
    return this.pending.shift();
  }

  /** A line typed at the bottom after `prefix` (a search); undefined when cancelled. */
  protected async readLine(prefix: string): Promise<string | undefined> {
    let line = '';
    await this.write(`\r\x1b[K${prefix}`);
    for (;;) {
      const key = await this.key();
      if (key === undefined || key === 'escape' || key === '\x03') return undefined;
      if (key === 'enter') return line;
      if (key === 'backspace') {
        if (line === '') return undefined;
        line = line.slice(0, -1);
        await this.write('\b \b');
      } else if (key.length === 1 && key >= ' ') {
        line += key;
        await this.write(key);
      }
    }
  }

  /** The first row at or after `from` (or before it, backward) that matches the pattern. */
  protected find(from: number, backward: boolean): number | undefined {
    const pattern = this.pattern;
    if (pattern === undefined) return undefined;
    for (let row = from; row >= 0 && row < this.rows.length; row += backward ? -1 : 1) {
      pattern.lastIndex = 0;
      if (pattern.test(plain(this.rows[row] as string))) return row;
    }
    return undefined;
  }

  /** A row as shown: the search's matches in reverse video (rows without colour only). */
  protected shown(row: string): string {
    const pattern = this.pattern;
    if (pattern === undefined || row.includes('\x1b')) return row;
    pattern.lastIndex = 0;
    return row.replace(pattern, (match) => (match === '' ? match : REVERSE(match)));
  }

  abstract run(): Promise<void>;
}

class Less extends Pager {
  private top = 0;
  private message: string | undefined;
  private first = true;
  private backward = false;

  constructor(
    sys: Syscalls,
    screen: Screen,
    text: string,
    private readonly options: PagerOptions,
  ) {
    super(sys, screen, text, options);
  }

  private get last(): number {
    return Math.max(0, this.rows.length - this.height);
  }

  private scroll(by: number): void {
    this.top = Math.min(this.last, Math.max(0, this.top + by));
  }

  private async draw(): Promise<void> {
    let out = '\x1b[H';
    for (let index = 0; index < this.height; index++) {
      const row = this.rows[this.top + index];
      out += `${row === undefined ? '~' : this.shown(row)}\x1b[K\r\n`;
    }
    const atEnd = this.top >= this.last;
    const prompt = this.message ?? (atEnd ? '(END)' : this.first && this.options.title !== undefined ? this.options.title : undefined);
    out += `${prompt === undefined ? ':' : REVERSE(prompt)}\x1b[K`;
    this.message = undefined;
    this.first = false;
    await this.write(out);
  }

  private async search(backward: boolean): Promise<void> {
    const pattern = await this.readLine(backward ? '?' : '/');
    if (pattern === undefined) return;
    if (pattern !== '') this.pattern = compile(pattern, this.options.ignoreCase === true);
    this.backward = backward;
    this.repeat(false);
  }

  private repeat(reverse: boolean): void {
    if (this.pattern === undefined) {
      this.message = 'No previous regular expression';
      return;
    }
    const backward = this.backward !== reverse;
    const found = this.find(backward ? this.top - 1 : this.top + 1, backward);
    if (found === undefined) this.message = 'Pattern not found';
    else this.top = Math.min(found, this.last);
  }

  async run(): Promise<void> {
    if (this.options.quitIfOneScreen === true && this.rows.length <= this.height) {
      await this.write(this.rows.map((row) => `${row}\r\n`).join(''));
      return;
    }
    await this.write(ALT_SCREEN_ON);
    try {
      await this.draw();
      let previous: Key | undefined;
      for (;;) {
        const key = await this.key();
        if (key === undefined || key === 'q' || key === 'Q' || key === '\x03' || (key === 'Z' && previous === 'Z')) return;
        previous = key;
        const half = Math.max(1, Math.floor(this.height / 2));
        switch (key) {
          case ' ': case 'f': case '\x06': case '\x16': case 'pagedown': case 'z':
            this.scroll(this.height);
            break;
          case 'b': case '\x02': case 'pageup': case 'w':
            this.scroll(-this.height);
            break;
          case 'enter': case 'j': case 'e': case '\x0e': case '\x05': case 'down':
            this.scroll(1);
            break;
          case 'k': case 'y': case '\x10': case '\x19': case 'up':
            this.scroll(-1);
            break;
          case 'd': case '\x04':
            this.scroll(half);
            break;
          case 'u': case '\x15':
            this.scroll(-half);
            break;
          case 'g': case '<': case 'home':
            this.top = 0;
            break;
          case 'G': case '>': case 'end':
            this.top = this.last;
            break;
          case '/': case '?':
            await this.search(key === '?');
            break;
          case 'n': case 'N':
            this.repeat(key === 'N');
            break;
          case 'h': case 'H':
            this.message = 'q quits; SPACE/b page, j/k line, /pattern searches (less --help)';
            break;
          default:
            break;
        }
        await this.draw();
      }
    } finally {
      await this.write(ALT_SCREEN_OFF);
    }
  }
}

class More extends Pager {
  /** Rows already written down the terminal. */
  private shownRows = 0;

  private async show(count: number): Promise<void> {
    const end = Math.min(this.rows.length, this.shownRows + count);
    let out = '\r\x1b[K';
    for (let row = this.shownRows; row < end; row++) out += `${this.shown(this.rows[row] as string)}\r\n`;
    this.shownRows = end;
    await this.write(out);
  }

  private async prompt(note = ''): Promise<void> {
    const percent = Math.floor((100 * this.shownRows) / Math.max(1, this.rows.length));
    await this.write(REVERSE(`--More--(${percent}%)${note}`));
  }

  async run(): Promise<void> {
    await this.show(this.height);
    while (this.shownRows < this.rows.length) {
      await this.prompt();
      const key = await this.key();
      if (key === undefined || key === 'q' || key === 'Q' || key === '\x03') {
        await this.write('\r\x1b[K');
        return;
      }
      switch (key) {
        case 'enter': case 'j': case 'down':
          await this.show(1);
          break;
        case 'd': case '\x04':
          await this.show(Math.max(1, Math.floor(this.height / 2)));
          break;
        case 'b': case '\x02': case 'pageup':
          this.shownRows = Math.max(0, this.shownRows - 2 * this.height);
          await this.write('\x1b[H\x1b[2J');
          await this.show(this.height);
          break;
        case '/': {
          const pattern = await this.readLine('/');
          if (pattern !== undefined && pattern !== '') this.pattern = compile(pattern, false);
          await this.skipToMatch();
          break;
        }
        case 'n':
          await this.skipToMatch();
          break;
        default:
          await this.show(this.height);
          break;
      }
    }
  }

  private async skipToMatch(): Promise<void> {
    const found = this.find(this.shownRows, false);
    if (found === undefined) {
      await this.write('\r\x1b[K');
      await this.prompt(' Pattern not found');
      const key = await this.key();
      if (key === 'q' || key === undefined) this.shownRows = this.rows.length;
      return;
    }
    await this.write('\r\x1b[K...skipping\r\n');
    this.shownRows = Math.max(this.shownRows, found - 2);
    await this.show(this.height);
  }
}

export const less = pagerProgram('less');
export const more = pagerProgram('more');
