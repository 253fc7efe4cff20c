// `wasi-run [--dir DIR[::NAME]]... [--env K=V]... PROG.wasm [ARGS]`: runs a WASI program the
// way wasmtime's command line does, so that WASI conformance suites run unchanged. The
// program gets `/` as its first preopen (fd 3) and then each --dir, DIR (a sandbox
// directory) preopened under NAME (DIR itself when no NAME is given); its environment is
// exactly the --env variables; PROG is a path, not searched on PATH. The status is the
// program's.

import { Errno, KernelError } from '../../errno.js';
import type { Process } from '../../proc/process.js';
import type { ExternalProgram } from '../../sys/external-program.js';
import { AT_FDCWD, type Syscalls } from '../../sys/syscalls.js';

const USAGE = 'usage: wasi-run [--dir DIR[::NAME]]... [--env NAME=VALUE]... PROG.wasm [ARGS...]\n';
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

/** wasi-run's command line, or the reason it is wrong. */
export type WasiRunArgs = { ok: true; dirs: Array<{ dir: string; name: string }>; env: string[]; program: string; args: string[] } | { ok: false; error: string };

export function parseWasiRunArgs(argv: string[]): WasiRunArgs {
  const dirs: Array<{ dir: string; name: string }> = [];
  const env: string[] = [];
  let index = 1;
  const valueOf = (option: string): string | undefined => {
    const arg = argv[index] as string;
    if (arg.startsWith(`${option}=`)) return arg.slice(option.length + 1);
    index += 1;
    return argv[index];
  };
  for (; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === '--') {
      index += 1;
      break;
    }
    if (arg === '--dir' || arg.startsWith('--dir=')) {
      const value = valueOf('--dir');
      if (value === undefined || value === '') return { ok: false, error: '--dir needs a directory (DIR or DIR::NAME)' };
      const split = value.indexOf('::');
      const dir = split < 0 ? value : value.slice(0, split);
      const name = split < 0 ? value : value.slice(split + 2);
      if (dir === '' || name === '') return { ok: false, error: `--dir ${value}: the directory and its name must not be empty` };
      dirs.push({ dir, name });
    } else if (arg === '--env' || arg.startsWith('--env=')) {
      const value = valueOf('--env');
      if (value === undefined || !/^[^=]+=/.test(value)) return { ok: false, error: `--env ${value ?? ''}: expected NAME=VALUE` };
      env.push(value);
    } else if (arg === '--help' || arg === '-h') {
      return { ok: false, error: '' };
    } else if (arg.startsWith('-') && arg !== '-') {
      return { ok: false, error: `unrecognized option '${arg}'` };
    } else {
      break;
    }
  }
  const program = argv[index];
  if (program === undefined) return { ok: false, error: 'missing the program (PROG.wasm)' };
  return { ok: true, dirs, env, program, args: argv.slice(index + 1) };
}

async function writeText(sys: Syscalls, fd: number, text: string): Promise<void> {
  await sys.complete(sys.writeAll(fd, new TextEncoder().encode(text)));
}

export const wasiRun: ExternalProgram = {
  name: 'wasi-run',
  async run(process: Process, sys: Syscalls): Promise<number> {
    const parsed = parseWasiRunArgs(process.argv);
    if (!parsed.ok) {
      if (parsed.error === '') {
        await writeText(sys, 1, USAGE);
        return 0;
      }
      await writeText(sys, 2, `wasi-run: ${parsed.error}\n${USAGE}`);
      return 2;
    }
    const program = parsed.program.includes('/') ? parsed.program : `./${parsed.program}`;
    const opened: number[] = [];
    let subject = parsed.program;
    try {
      // Only a wasm module: wasi-run is not a way to run tools or scripts.
      const fd = sys.openat(AT_FDCWD, program, { read: true });
      opened.push(fd);
      const head = (await sys.complete(sys.read(fd, 4))).slice();
      if (head.length < 4 || WASM_MAGIC.some((byte, i) => head[i] !== byte)) {
        await writeText(sys, 2, `wasi-run: ${parsed.program}: not a wasm module\n`);
        return 126;
      }
      const fds = [0, 1, 2].map((n) => ({ childFd: n, parentFd: n }));
      // fd 3 is left free: the kernel gives every process `/` there; the named preopens follow.
      parsed.dirs.forEach(({ dir, name }, i) => {
        subject = dir;
        const preopen = sys.openPreopen(dir, name);
        opened.push(preopen);
        fds.push({ childFd: 4 + i, parentFd: preopen });
      });
      subject = parsed.program;
      const pid = sys.spawn({
        program, argv: [parsed.program, ...parsed.args], env: parsed.env, cwd: '', fds,
        blob: new Uint8Array(0), ignoreSigpipe: false, newGroup: false,
      });
      for (const fd of opened.splice(0)) sys.close(fd);
      const ended = await sys.complete(sys.wait(pid));
      return ended?.status ?? 1;
    } catch (error) {
      if (!(error instanceof KernelError)) throw error;
      const what = error.errno === Errno.NOENT ? 'No such file or directory' : error.errno === Errno.NOTDIR ? 'Not a directory' : error.message;
      await writeText(sys, 2, `wasi-run: ${subject}: ${what}\n`);
      return error.errno === Errno.NOENT ? 127 : 126;
    } finally {
      for (const fd of opened) sys.close(fd);
    }
  },
};
