// The kernel's own programs in a kernel: ps and top over /proc, the pagers over a terminal
// whose keys are the run's stdin (in raw mode, restored when they end).

import { describe, expect, it } from 'vitest';
import { createTestKernel } from '../../../tests/helpers/test-kernel.js';
import { TTY_COOKED } from '../fd/tty.js';
import { decodeKeys, wrapLine } from './screen.js';

const encoder = new TextEncoder();
const numbered = (count: number): string => Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n') + '\n';
/** What a screen shows, without the escapes that draw it. */
const visible = (text: string): string => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

describe('ps', () => {
  it('lists the processes on its terminal in procps’s layout, and all of them with -e, -f, aux', async () => {
    const t = createTestKernel();
    const mine = await t.run(['ps'], { terminal: true });
    expect(mine.exitCode).toBe(0);
    expect(mine.out).toMatch(/^ {4}PID TTY {10}TIME CMD\n +\d+ pts\/0 {4}00:00:00 ps\n$/);
    // Not on a terminal: ps itself has no tty ('?').
    expect((await t.run(['ps', '-e'])).out).toMatch(/^ {4}PID TTY {10}TIME CMD\n +\d+ \? {8}00:00:00 ps\n$/);
    expect((await t.run(['ps', '-ef'])).out).toMatch(/^UID {10}PID {4}PPID {2}C STIME TTY {10}TIME CMD\nuser +\d+ +0 +\d+ \d\d:\d\d \? +00:00:00 ps -ef\n$/);
    expect((await t.run(['ps', 'aux'])).out).toMatch(/^USER {9}PID %CPU %MEM {4}VSZ {3}RSS TTY {6}STAT START {3}TIME COMMAND\nuser +\d+ +[\d.]+ +[\d.]+ +\d+ +\d+ \? +Rs? +\d\d:\d\d +0:00 ps aux\n$/);
  });

  it('selects by pid and refuses unknown options with its usage', async () => {
    const t = createTestKernel();
    const missing = await t.run(['ps', '-p', '999']);
    expect(missing.out).toBe('    PID TTY          TIME CMD\n');
    expect(missing.exitCode).toBe(1);
    const bad = await t.run(['ps', '-Z']);
    expect(bad.exitCode).toBe(1);
    expect(bad.err).toMatch(/^error: unsupported option -Z\n\nUsage:/);
  });
});

describe('top', () => {
  it('prints frames with the summary and the process list in batch mode', async () => {
    const t = createTestKernel();
    const result = await t.run(['top', '-b', '-n', '2', '-d', '0.1']);
    expect(result.exitCode).toBe(0);
    const frames = result.out.split(/\n(?=top - )/);
    expect(frames).toHaveLength(2);
    for (const frame of frames) {
      expect(frame).toMatch(/^top - \d\d:\d\d:\d\d up \d+ min, {2}1 user, {2}load average: /);
      expect(frame).toContain('\nTasks:   1 total,   1 running,   0 sleeping,   0 stopped,   0 zombie\n');
      expect(frame).toMatch(/\n {4}PID USER {6}PR {2}NI {4}VIRT {4}RES {4}SHR S {2}%CPU {2}%MEM {5}TIME\+ COMMAND\n +\d+ user {6}20 {3}0 .* top\n$/);
    }
    expect((await t.run(['top', '-n', 'x'])).err).toMatch(/^top: bad iterations argument 'x'/);
  });

  it('on a terminal draws on the alternate screen in raw mode until q', async () => {
    const modes: number[] = [];
    const t = createTestKernel({ events: { terminalMode: (_runId, flags) => modes.push(flags) } });
    const result = await t.run(['top', '-d', '60'], { terminal: true, stdin: 'q', terminalSize: { cols: 60, rows: 12 } });
    expect(result.exitCode).toBe(0);
    expect(result.out.startsWith('\x1b[?1049h')).toBe(true);
    expect(result.out.endsWith('\x1b[?1049l')).toBe(true);
    expect(visible(result.out)).toContain('Tasks:');
    expect(modes).toEqual([0, TTY_COOKED]);
  });
});

describe('less', () => {
  it('pages a file: a screen, space, search with the match shown, G to (END), q', async () => {
    const modes: number[] = [];
    const t = createTestKernel({ events: { terminalMode: (_runId, flags) => modes.push(flags) } });
    t.kernel.fs.writeFile('/home/user/lines.txt', encoder.encode(numbered(100)));
    const screens = async (keys: string): Promise<string[]> => {
      const result = await t.run(['less', 'lines.txt'], { terminal: true, stdin: keys, terminalSize: { cols: 40, rows: 10 } });
      expect(result.exitCode).toBe(0);
      expect(result.out.startsWith('\x1b[?1049h')).toBe(true);
      expect(result.out.endsWith('\x1b[?1049l')).toBe(true);
      return result.out.split('\x1b[H').slice(2).map(visible);
    };
    const [first] = await screens('q');
    expect(first).toBe(`${numbered(9).replace(/\n/g, '\r\n')}lines.txt`);
    const [, second] = await screens(' q');
    expect(second).toBe(`${Array.from({ length: 9 }, (_, i) => `line ${i + 10}`).join('\r\n')}\r\n:`);
    const searched = (await screens('/ne 5\rq'))[1] ?? '';
    expect(searched.split('\r\n')[0]).toBe('line 5');
    const end = (await screens('Gq'))[1] ?? '';
    expect(end.endsWith('line 100\r\n(END)')).toBe(true);
    const missing = (await screens('/nowhere\rq'))[1] ?? '';
    expect(missing.endsWith('Pattern not found')).toBe(true);
    expect(modes.slice(0, 2)).toEqual([0, TTY_COOKED]);
  });

  it('copies its input when stdout is not a terminal, and names what it cannot open', async () => {
    const t = createTestKernel();
    t.kernel.fs.writeFile('/home/user/a.txt', encoder.encode('alpha\n'));
    expect((await t.run(['less', 'a.txt'])).out).toBe('alpha\n');
    expect((await t.run(['less'], { stdin: 'piped\n' })).out).toBe('piped\n');
    const missing = await t.run(['less', 'nope.txt']);
    expect(missing).toMatchObject({ exitCode: 1, err: 'nope.txt: No such file or directory\n' });
    expect((await t.run(['less', '-Y', 'a.txt'])).err).toBe('There is no -Y option ("less --help" for help)\n');
    expect((await t.run(['less'], { terminal: true })).err).toBe('Missing filename ("less --help" for help)\n');
  });

  it('reads its keys from /dev/tty when its input is a pipe', async () => {
    // stdin is the terminal, so the file comes from a pipe through the shell-less kernel:
    // less's input is the file operand, the keys the terminal.
    const t = createTestKernel();
    t.kernel.fs.writeFile('/home/user/short.txt', encoder.encode('one\ntwo\n'));
    const result = await t.run(['less', '-F', 'short.txt'], { terminal: true, stdin: '' });
    expect(result.out).toBe('one\r\ntwo\r\n');
  });
});

describe('more', () => {
  it('pages down the terminal with --More--(NN%) and ends at the end', async () => {
    const t = createTestKernel();
    t.kernel.fs.writeFile('/home/user/lines.txt', encoder.encode(numbered(20)));
    const result = await t.run(['more', 'lines.txt'], { terminal: true, stdin: ' ', terminalSize: { cols: 40, rows: 10 } });
    expect(result.exitCode).toBe(0);
    const shown = visible(result.out);
    expect(shown).toContain('line 9\r\n--More--(45%)');
    // The terminal's input ends (no more keys): more stops where it is, the prompt cleared.
    expect(shown.endsWith('line 18\r\n--More--(90%)\r')).toBe(true);
    const quit = await t.run(['more', 'lines.txt'], { terminal: true, stdin: 'q', terminalSize: { cols: 40, rows: 10 } });
    expect(visible(quit.out).endsWith('--More--(45%)\r')).toBe(true);
    // Short input: printed, no prompt.
    t.kernel.fs.writeFile('/home/user/two.txt', encoder.encode('a\nb\n'));
    expect((await t.run(['more', 'two.txt'], { terminal: true, stdin: '' })).out).toBe('\r\x1b[Ka\r\nb\r\n');
  });
});

describe('the screen helpers', () => {
  it('decode an xterm’s keys and wrap lines by cells, colour escapes not counted', () => {
    expect(decodeKeys('j\x1b[B\x1b[6~\r/x\x7f\x1b')).toEqual(['j', 'down', 'pagedown', 'enter', '/', 'x', 'backspace', 'escape']);
    expect(wrapLine('abcdefgh', 3)).toEqual(['abc', 'def', 'gh']);
    expect(wrapLine('\x1b[31mred\x1b[0m!', 3)).toEqual(['\x1b[31mred\x1b[0m\x1b[0m', '!\x1b[0m']);
    expect(wrapLine('a\tb', 20)).toEqual(['a       b']);
    expect(wrapLine('abcdef', 3, true)).toEqual(['abc']);
    expect(wrapLine('', 3)).toEqual(['']);
  });
});
