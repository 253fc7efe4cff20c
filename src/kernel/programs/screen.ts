// The terminal as a full-screen program (a pager, top) uses it: /dev/tty in raw mode (every
// key as typed, no echo, Ctrl-C a key), its size, keys decoded from the bytes an xterm
// sends, and lines cut to the screen's width with colour escapes passed through.

import { AT_FDCWD, type Syscalls } from '../sys/syscalls.js';
import type { TtySize } from '../fd/tty.js';

export interface Screen {
  /** The terminal's descriptor (/dev/tty): keys are read here. */
  readonly fd: number;
  readonly size: TtySize;
  /** Back to the mode it was in (the kernel also does so when the program exits). */
  restore(): void;
}

/** Opens /dev/tty and turns canonical mode, echo and signals off. */
export function openScreen(sys: Syscalls): Screen {
  const fd = sys.openat(AT_FDCWD, '/dev/tty', { read: true, write: true });
  const mode = sys.ttyGetMode(fd);
  sys.ttySetMode(fd, 0);
  return {
    fd,
    size: sys.ttySize(fd),
    restore: () => {
      sys.ttySetMode(fd, mode);
      sys.close(fd);
    },
  };
}

export type Key = string;

const SEQUENCES: Record<string, Key> = {
  '\x1b[A': 'up',
  '\x1bOA': 'up',
  '\x1b[B': 'down',
  '\x1bOB': 'down',
  '\x1b[C': 'right',
  '\x1bOC': 'right',
  '\x1b[D': 'left',
  '\x1bOD': 'left',
  '\x1b[5~': 'pageup',
  '\x1b[6~': 'pagedown',
  '\x1b[H': 'home',
  '\x1bOH': 'home',
  '\x1b[1~': 'home',
  '\x1b[F': 'end',
  '\x1bOF': 'end',
  '\x1b[4~': 'end',
  '\x1bv': 'pageup',
};

/** The keys in a chunk the terminal sent: escape sequences named, other characters as they are. */
export function decodeKeys(text: string): Key[] {
  const keys: Key[] = [];
  let index = 0;
  while (index < text.length) {
    if (text[index] === '\x1b') {
      const sequence = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z]|[A-Za-z])?/.exec(text.slice(index))?.[0] ?? '\x1b';
      keys.push(SEQUENCES[sequence] ?? (sequence === '\x1b' ? 'escape' : 'unknown'));
      index += sequence.length;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(index) ?? 0);
    keys.push(char === '\r' || char === '\n' ? 'enter' : char === '\x7f' || char === '\b' ? 'backspace' : char);
    index += char.length;
  }
  return keys;
}

const SGR = /^\x1b\[[0-9;]*m/;

/**
 * Cuts one line of text into rows at most `cols` cells wide (or keeps only the first when
 * `chop`): tabs to the next multiple of 8, other control characters as ^X, colour escapes
 * (SGR) kept and not counted.
 */
export function wrapLine(line: string, cols: number, chop = false): string[] {
  const rows: string[] = [];
  let row = '';
  let width = 0;
  let coloured = false;
  const push = (): void => {
    rows.push(coloured ? `${row}\x1b[0m` : row);
    row = '';
    width = 0;
  };
  for (let index = 0; index < line.length; ) {
    const sgr = line[index] === '\x1b' ? SGR.exec(line.slice(index))?.[0] : undefined;
    if (sgr !== undefined) {
      row += sgr;
      coloured = true;
      index += sgr.length;
      continue;
    }
    const char = String.fromCodePoint(line.codePointAt(index) ?? 0);
    index += char.length;
    const code = char.codePointAt(0) ?? 0;
    const shown = char === '\t' ? ' '.repeat(8 - (width % 8)) : code < 0x20 || code === 0x7f ? `^${String.fromCharCode(code ^ 0x40)}` : char;
    if (width + shown.length > cols) {
      if (chop) break;
      push();
    }
    row += char === '\t' ? ' '.repeat(Math.min(8 - (width % 8), cols - width)) : shown;
    width += shown.length;
  }
  if (row !== '' || rows.length === 0) push();
  return chop ? rows.slice(0, 1) : rows;
}

/** Text without its colour escapes (what searches look at). */
export function plain(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

export const ALT_SCREEN_ON = '\x1b[?1049h\x1b[H\x1b[2J';
export const ALT_SCREEN_OFF = '\x1b[?1049l';
export const REVERSE = (text: string): string => `\x1b[7m${text}\x1b[27m`;
