// man: manual pages for the sandbox's commands, made from what each command says of itself
// (`CMD --help`; a shell builtin's `help NAME`), laid out as a man page and paged with less
// on a terminal. `man -k WORD` (apropos) lists the commands whose names contain WORD.

import { KernelError } from '../errno.js';
import { AT_FDCWD, type Syscalls } from '../sys/syscalls.js';
import { page } from './pager.js';
import { envOf, kernelProgram, readAll, toolName, writeText } from './program-io.js';

const decoder = new TextDecoder();
const BIN = '/usr/bin';
/** apropos answers with at most this many commands (each is asked for its --help). */
const MAX_APROPOS = 40;
/** man exits 16 when there is no page, as man-db does. */
const NO_PAGE = 16;

const MAN_PAGE = `man - the manual pages of the sandbox's commands

  man NAME       the page of command NAME (its --help) or of shell builtin NAME (help NAME)
  man -k WORD    the commands whose names contain WORD, with what each does (also: apropos WORD)

On a terminal the page opens in less (q quits, /pattern searches). The shell's builtins are
listed by \`help\`.
`;

/** Runs `argv` with stdout and stderr on a pipe; its output and exit status. */
async function capture(sys: Syscalls, argv: string[]): Promise<{ out: string; status: number }> {
  const [readFd, writeFd] = sys.pipe();
  let pid: number;
  try {
    pid = sys.spawn({ ignoreSigpipe: false, newGroup: false, program: argv[0] as string, argv, env: sys.environ(), cwd: '', fds: [{ childFd: 1, parentFd: writeFd }, { childFd: 2, parentFd: writeFd }], blob: new Uint8Array(0) });
  } finally {
    sys.close(writeFd);
  }
  const out = decoder.decode(await readAll(sys, readFd));
  sys.close(readFd);
  const ended = await sys.complete(sys.wait(pid));
  return { out, status: ended?.status ?? 1 };
}

function isCommand(sys: Syscalls, name: string): boolean {
  if (name.includes('/') || name === '' || name.startsWith('.')) return false;
  try {
    sys.statat(AT_FDCWD, `${BIN}/${name}`, true);
    return true;
  } catch (error) {
    if (error instanceof KernelError) return false;
    throw error;
  }
}

/** What a command says it does: the first line of its help that is not a usage line. */
function summaryOf(help: string): string {
  const line = help
    .split('\n')
    .map((text) => text.trim())
    .find((text) => text !== '' && !/^(usage:|or:)/i.test(text) && !text.startsWith('-'));
  return (line ?? '').replace(/\.$/, '');
}

function layout(name: string, kind: string, help: string, cols: number): string {
  const width = Math.max(40, Math.min(cols, 120));
  const title = `${name.toUpperCase()}(1)`;
  const middle = kind;
  const gap = Math.max(1, width - 2 * title.length - middle.length);
  const header = title + ' '.repeat(Math.floor(gap / 2)) + middle + ' '.repeat(Math.ceil(gap / 2)) + title;
  const indent = (text: string): string =>
    text
      .replace(/\n+$/, '')
      .split('\n')
      .map((line) => (line.trim() === '' ? '' : `       ${line}`))
      .join('\n');
  const summary = summaryOf(help);
  const footer = 'Airlock' + ' '.repeat(Math.max(1, width - 7 - title.length)) + title;
  return `${header}\n\nNAME\n       ${name}${summary === '' ? '' : ` - ${summary}`}\n\nDESCRIPTION\n${indent(help)}\n\n${footer}\n`;
}

async function pageFor(sys: Syscalls, name: string): Promise<{ kind: string; help: string } | undefined> {
  if (name === 'man' || name === 'apropos') return { kind: 'Manual pager utils', help: MAN_PAGE };
  if (isCommand(sys, name)) {
    const { out } = await capture(sys, [name, '--help']);
    if (out.trim() !== '') return { kind: 'User Commands', help: out };
  }
  const builtin = await capture(sys, ['bash', '-c', 'help "$1"', 'bash', name]);
  if (builtin.status === 0 && builtin.out.trim() !== '') return { kind: 'Shell Builtins', help: builtin.out };
  return undefined;
}

async function apropos(sys: Syscalls, words: string[]): Promise<number> {
  if (words.length === 0) return (await writeText(sys, 2, 'apropos what?\n'), 1);
  const names = sys
    .listdir(AT_FDCWD, BIN)
    .map((entry) => entry.name)
    .filter((name) => words.some((word) => name.toLowerCase().includes(word.toLowerCase())))
    .sort();
  if (names.length === 0) return (await writeText(sys, 1, `${words.join(' ')}: nothing appropriate.\n`), NO_PAGE);
  let out = '';
  for (const name of names.slice(0, MAX_APROPOS)) {
    const { out: help } = await capture(sys, [name, '--help']);
    out += `${`${name} (1)`.padEnd(20)} - ${summaryOf(help) || name}\n`;
  }
  if (names.length > MAX_APROPOS) out += `(${names.length - MAX_APROPOS} more: ask with a longer word)\n`;
  await writeText(sys, 1, out);
  return 0;
}

export const man = kernelProgram('man', async (sys, argv) => {
  const args = argv.slice(1);
  if (toolName(argv, 'man') === 'apropos') return apropos(sys, args);
  if (args[0] === '-k') return apropos(sys, args.slice(1));
  if (args[0] === '-h' || args[0] === '--help') return (await writeText(sys, 1, MAN_PAGE), 0);
  const bad = args.find((arg) => arg.startsWith('-'));
  if (bad !== undefined) return (await writeText(sys, 2, `man: invalid option -- '${bad.replace(/^-+/, '')}'\nTry 'man --help' for more information.\n`), 2);
  // man 1 ls: a section number before the name is accepted (every page is in section 1).
  const names = args.filter((arg, index) => !(index === 0 && /^\d$/.test(arg) && args.length > 1));
  if (names.length === 0) return (await writeText(sys, 2, "What manual page do you want?\nFor example, try 'man man'.\n"), 1);
  const cols = sys.isatty(1) ? sys.ttySize(1).cols : Number(envOf(sys, 'MANWIDTH') ?? envOf(sys, 'COLUMNS') ?? 80) || 80;
  let status = 0;
  let text = '';
  for (const name of names) {
    const found = await pageFor(sys, name);
    if (found === undefined) {
      await writeText(sys, 2, `No manual entry for ${name}\n`);
      status = NO_PAGE;
      continue;
    }
    text += layout(name, found.kind, found.help, cols);
  }
  if (text === '') return status;
  if (sys.isatty(1)) await page(sys, 'less', text, { title: `Manual page ${names.join(' ')}(1) (press h for help or q to quit)` });
  else await writeText(sys, 1, text);
  return status;
});
