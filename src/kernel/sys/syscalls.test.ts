// External programs (Python's way in): a JS "program" that uses Syscalls must see the
// same files, pipes, children and limits as a wasm one.

import { describe, expect, it } from 'vitest';
import { createTestKernel } from '../../../tests/helpers/test-kernel.js';
import { Errno, KernelError } from '../errno.js';
import type { ExternalProgram } from './external-program.js';
import { AT_FDCWD, kindOf, type Syscalls } from './syscalls.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function program(body: (sys: Syscalls, argv: string[]) => Promise<number>): ExternalProgram {
  return { name: 'js', run: (process, sys) => body(sys, process.argv) };
}

async function readAll(sys: Syscalls, fd: number): Promise<string> {
  let text = '';
  for (;;) {
    const chunk = (await sys.complete(sys.read(fd, 65536))).slice();
    if (chunk.length === 0) return text;
    text += decoder.decode(chunk);
  }
}

describe('external programs', () => {
  it('use the same VFS, descriptors and errors as wasm programs', async () => {
    const t = createTestKernel({
      externals: [
        {
          tools: ['jsprog'],
          program: program(async (sys, argv) => {
            const fd = sys.openat(AT_FDCWD, 'out.txt', { write: true, create: true, truncate: true });
            await sys.complete(sys.writeAll(fd, encoder.encode(`args=${argv.slice(1).join(',')}\n`)));
            sys.close(fd);
            const stat = sys.statat(AT_FDCWD, 'out.txt', true);
            await sys.complete(sys.writeAll(1, encoder.encode(`${kindOf(stat)} ${stat.size} ${(stat.mode & 0o777).toString(8)}\n`)));
            await sys.complete(sys.writeAll(1, encoder.encode((await readAll(sys, 0)).toUpperCase())));
            try {
              sys.openat(AT_FDCWD, '/etc/x', { write: true, create: true });
            } catch (error) {
              await sys.complete(sys.writeAll(2, encoder.encode(`errno ${(error as KernelError).errno}\n`)));
            }
            return 3;
          }),
        },
      ],
    });
    const result = await t.run(['jsprog', 'a', 'b'], { stdin: 'from stdin\n' });
    expect(result.out).toBe('file 9 644\nFROM STDIN\n');
    expect(result.err).toBe(`errno ${Errno.ROFS}\n`);
    expect(result.exitCode).toBe(3);
    expect((await t.run(['probe', 'read', 'out.txt'])).out).toBe('args=a,b\n');
  });

  it('spawn wasm children through pipes and wait for them', async () => {
    const t = createTestKernel({
      externals: [
        {
          tools: ['jsprog'],
          program: program(async (sys) => {
            const [readFd, writeFd] = sys.pipe();
            const pid = sys.spawn({ ignoreSigpipe: false, newGroup: false, program: 'probe', argv: ['probe', 'emit', '100000'], env: [], cwd: '', fds: [{ childFd: 0, parentFd: 0 }, { childFd: 1, parentFd: writeFd }, { childFd: 2, parentFd: 2 }], blob: new Uint8Array(0) });
            sys.close(writeFd);
            const text = await readAll(sys, readFd);
            const waited = await sys.complete(sys.wait(pid));
            await sys.complete(sys.writeAll(1, encoder.encode(`${text.length} ${waited?.status}\n`)));
            return 0;
          }),
        },
      ],
    });
    expect((await t.run(['jsprog'])).out).toBe('100000 0\n');
  });

  it('end at the deadline with 124', async () => {
    const t = createTestKernel({ externals: [{ tools: ['jsprog'], program: program(async (sys) => (await sys.complete(sys.sleep(10_000)), 0)) }] });
    const result = await t.run(['jsprog'], { timeoutMs: 100 });
    expect(result.exitCode).toBe(124);
    expect(result.errorClass).toBe('timeout');
  });
});
