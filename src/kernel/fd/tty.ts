// The session's terminal as programs see it: its line discipline's mode and its size.
//
// The line discipline itself runs where the keys are, in the page (src/ui/terminal): in
// canonical mode it edits a line and sends it when Enter is pressed, echoing as it goes; a
// full-screen program (a pager, top) turns canonical mode and echo off, and the page then
// sends every key as it is typed, echoing nothing. The kernel keeps the mode, tells the host
// when it changes (the `terminal-mode` event) and puts it back when the run ends or the
// process that changed it exits, so a killed pager never leaves the terminal raw.

import { TTY_COOKED, TTY_FLAGS } from '../../protocol/terminal.js';

export { TTY_COOKED, TTY_ECHO, TTY_ICANON, TTY_ISIG } from '../../protocol/terminal.js';

export interface TtySize {
  rows: number;
  cols: number;
}

/** The largest size accepted from the host (a bigger one is clamped). */
const MAX_CELLS = 10_000;

export class Tty {
  private mode = TTY_COOKED;
  private sizeValue: TtySize = { rows: 24, cols: 80 };
  /** The process that last left cooked mode: its exit restores it. */
  private owner: number | undefined;

  constructor(private readonly onModeChange: (flags: number) => void) {}

  get flags(): number {
    return this.mode;
  }

  get size(): TtySize {
    return { ...this.sizeValue };
  }

  /** Sets the mode flags (unknown bits are ignored); `pid` is the process asking. */
  setFlags(flags: number, pid: number | undefined): void {
    const next = flags & TTY_FLAGS;
    this.owner = next === TTY_COOKED ? undefined : pid;
    if (next === this.mode) return;
    this.mode = next;
    this.onModeChange(next);
  }

  /** Back to cooked mode (the run ended). */
  reset(): void {
    this.setFlags(TTY_COOKED, undefined);
  }

  /** A process exited: if it left the terminal raw, the terminal goes back to cooked mode. */
  processExited(pid: number): void {
    if (this.owner === pid) this.reset();
  }

  resize(size: TtySize): void {
    const clamp = (value: number): number => Math.min(MAX_CELLS, Math.max(1, Math.floor(Number.isFinite(value) ? value : 1)));
    this.sizeValue = { rows: clamp(size.rows), cols: clamp(size.cols) };
  }
}
