// Command history of the terminal: ↑/↓ walk it, the line being typed is kept as a draft,
// consecutive duplicates and blank lines are not recorded, and it is capped so that what is
// persisted stays small.

export const HISTORY_LIMIT = 1000;

export class History {
  private entries: string[];
  /** Position while walking: entries.length means "the draft". */
  private index: number;
  private draft = '';

  constructor(entries: readonly string[] = [], private readonly limit = HISTORY_LIMIT) {
    this.entries = entries.filter((e) => typeof e === 'string').slice(-limit);
    this.index = this.entries.length;
  }

  get all(): readonly string[] {
    return this.entries;
  }

  /** Records a submitted line; returns whether the history changed. */
  add(line: string): boolean {
    this.index = this.entries.length;
    this.draft = '';
    if (line.trim() === '' || this.entries[this.entries.length - 1] === line) {
      this.index = this.entries.length;
      return false;
    }
    this.entries.push(line);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
    this.index = this.entries.length;
    return true;
  }

  /** The older entry (↑), or undefined at the oldest. `current` is kept as the draft. */
  previous(current: string): string | undefined {
    if (this.index === 0) return undefined;
    if (this.index === this.entries.length) this.draft = current;
    this.index -= 1;
    return this.entries[this.index];
  }

  /** The newer entry (↓), the draft past the newest, or undefined when already there. */
  next(): string | undefined {
    if (this.index >= this.entries.length) return undefined;
    this.index += 1;
    return this.index === this.entries.length ? this.draft : this.entries[this.index];
  }
}
