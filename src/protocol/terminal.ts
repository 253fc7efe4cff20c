// The terminal's mode as the kernel and the host both name it (docs/abi.md, "The
// terminal"): termios's c_lflag bits on Linux, the three this terminal honours.

/** Ctrl-C is SIGINT (off: the byte 0x03 goes to the program). */
export const TTY_ISIG = 0o1;
/** A line at a time, edited and echoed by the terminal (off: every key as it is typed). */
export const TTY_ICANON = 0o2;
/** The terminal shows what is typed. */
export const TTY_ECHO = 0o10;
/** Every flag this terminal knows. */
export const TTY_FLAGS = TTY_ISIG | TTY_ICANON | TTY_ECHO;
/** What a terminal starts in, and every run ends in. */
export const TTY_COOKED = TTY_FLAGS;

/** The terminal's line discipline as a program set it. */
export interface TerminalMode {
  /** A line at a time, edited by the terminal; false: every key as it is typed. */
  canonical: boolean;
  /** The terminal shows what is typed. */
  echo: boolean;
  /** Ctrl-C is SIGINT; false: it is the byte 0x03 for the program. */
  signals: boolean;
}

export function terminalModeOf(flags: number): TerminalMode {
  return { canonical: (flags & TTY_ICANON) !== 0, echo: (flags & TTY_ECHO) !== 0, signals: (flags & TTY_ISIG) !== 0 };
}
