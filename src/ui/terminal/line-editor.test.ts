// The line editor, history and completion as pure logic (no terminal, no sandbox).

import { describe, expect, it } from 'vitest';
import { complete, escapeWord } from './completion.js';
import { History } from './history.js';
import { LineEditor, splitKeys, visibleWidth } from './line-editor.js';

/** Keys fed to the editor, the line after them and, where given, the cursor. */
type Step = [keys: string, buffer: string, cursor?: number];

describe('LineEditor', () => {
  it('echoes typed text and submits the line', () => {
    const editor = new LineEditor(80);
    expect(editor.begin('$ ')).toBe('$ ');
    expect(editor.feed('ls').output).toBe('ls');
    const result = editor.feed('\r');
    expect(result.action).toEqual({ kind: 'submit', line: 'ls' });
    expect(result.output.endsWith('\r\n')).toBe(true);
  });

  // Each case: the history the editor starts with, then keys typed and the line after them.
  it.each<{ name: string; history: string[]; steps: Step[] }>([
    {
      name: 'edits in the middle of the line',
      history: [],
      steps: [
        ['echo wrld', 'echo wrld'],
        ['\x1b[D\x1b[D\x1b[D', 'echo wrld', 6],
        ['o', 'echo world'],
        ['\x01', 'echo world', 0],
        ['\x1b[3~', 'cho world'],
        ['\x05\x17', 'cho '],
        ['\x15', ''],
      ],
    },
    {
      name: 'walks history with the draft kept',
      history: ['one', 'two'],
      steps: [
        ['dra', 'dra'],
        ['\x1b[A', 'two'],
        ['\x1b[A\x1b[A', 'one'],
        ['\x1b[B\x1b[B', 'dra'],
      ],
    },
  ])('$name', ({ history, steps }) => {
    const editor = new LineEditor(80, new History(history));
    editor.begin('$ ');
    for (const [keys, buffer, cursor] of steps) {
      editor.feed(keys);
      expect(editor.buffer, `after ${JSON.stringify(keys)}`).toBe(buffer);
      if (cursor !== undefined) expect(editor.cursor).toBe(cursor);
    }
  });

  it('returns input after a submitted line unprocessed (typed ahead)', () => {
    const editor = new LineEditor(80);
    editor.begin('$ ');
    const result = editor.feed('cat\r\nhello\r');
    expect(result.action).toEqual({ kind: 'submit', line: 'cat' });
    expect(result.rest).toBe('hello\r');
  });

  it('Ctrl-C abandons the line, Ctrl-D on an empty line is EOF, Tab asks to complete', () => {
    const editor = new LineEditor(80);
    editor.begin('$ ');
    editor.feed('sleep 1');
    expect(editor.feed('\x03').action).toEqual({ kind: 'interrupt' });
    expect(editor.buffer).toBe('');
    expect(editor.feed('\x04').action).toEqual({ kind: 'eof' });
    expect(editor.feed('l\t').action).toEqual({ kind: 'complete' });
  });

  it('moves across wrapped rows when the line is longer than the terminal', () => {
    const editor = new LineEditor(10);
    editor.begin('$ ');
    editor.feed('12345678');
    // 2 + 8 = 10 columns: the cursor is stepped onto the next row.
    editor.feed('9');
    const out = editor.feed('\x01').output;
    expect(out).toBe('\x1b[1A\r\x1b[2C');
  });
});

describe('helpers', () => {
  it('splits escape sequences and measures prompts without colours', () => {
    expect(splitKeys('a\x1b[Ab\x1bOH')).toEqual(['a', '\x1b[A', 'b', '\x1bOH']);
    expect(visibleWidth('\x1b[1;32muser\x1b[0m$ ')).toBe(6);
  });

  it('history skips blanks and repeats and is capped', () => {
    const history = new History([], 3);
    for (const line of ['a', 'a', ' ', 'b', 'c', 'd']) history.add(line);
    expect(history.all).toEqual(['b', 'c', 'd']);
  });
});

describe('completion', () => {
  const tree: Record<string, Array<{ name: string; kind: string }>> = {
    '.': [
      { name: 'notes.txt', kind: 'file' },
      { name: 'notebook', kind: 'dir' },
      { name: '.hidden', kind: 'file' },
      { name: 'my file', kind: 'file' },
    ],
    'notebook/': [{ name: 'a.py', kind: 'file' }],
  };
  const context = {
    commands: ['grep', 'gzip', 'ls', 'less'],
    listDir: async (path: string) => {
      const entries = tree[path];
      if (entries === undefined) throw new Error('ENOENT');
      return entries;
    },
  };

  it('completes a command in command position', async () => {
    expect(await complete('gr', 2, context)).toEqual({ line: 'grep ', cursor: 5, candidates: [] });
    expect(await complete('echo x | g', 10, context)).toMatchObject({ line: 'echo x | g', candidates: ['grep', 'gzip'] });
  });

  it('completes paths: common prefix, directories get a slash, names are escaped', async () => {
    expect((await complete('cat no', 6, context)).line).toBe('cat note');
    expect((await complete('cat noteb', 9, context)).line).toBe('cat notebook/');
    expect((await complete('cat notebook/', 13, context)).line).toBe('cat notebook/a.py ');
    expect((await complete('cat my', 6, context)).line).toBe('cat my\\ file ');
    expect((await complete('cat .h', 6, context)).line).toBe('cat .hidden ');
    expect((await complete('cat zz', 6, context)).candidates).toEqual([]);
    expect(escapeWord('a b$c')).toBe('a\\ b\\$c');
  });
});

describe('reverse search (Ctrl-R)', () => {
  const editorWith = (...entries: string[]): LineEditor => {
    const editor = new LineEditor(80, new History(entries));
    editor.begin('$ ');
    return editor;
  };

  it('finds the newest match as the query grows, an older one with Ctrl-R, and submits it', () => {
    const editor = editorWith('echo needle-1', 'ls', 'echo needle-2', 'pwd');
    expect(editor.feed('\x12').output).toContain("(reverse-i-search)`': ");
    expect(editor.feed('need').output).toContain("(reverse-i-search)`need': echo needle-2");
    expect(editor.feed('\x12').output).toContain('echo needle-1');
    const done = editor.feed('\r');
    expect(done.action).toEqual({ kind: 'submit', line: 'echo needle-1' });
    expect(editor.searching).toBe(false);
  });

  it('says when nothing matches, and Ctrl-G gives the original line back', () => {
    const editor = editorWith('ls -l');
    editor.feed('draft');
    expect(editor.feed('\x12zzz').output).toContain('(failed reverse-i-search)`zzz');
    editor.feed('\x07');
    expect(editor.buffer).toBe('draft');
    expect(editor.searching).toBe(false);
  });

  it('an arrow or Esc keeps the match for editing', () => {
    const editor = editorWith('git status', 'make test');
    editor.feed('\x12stat\x1b[D');
    expect(editor.buffer).toBe('git status');
    expect(editor.searching).toBe(false);
    editor.feed('\x05!');
    expect(editor.buffer).toBe('git status!');
  });
});
