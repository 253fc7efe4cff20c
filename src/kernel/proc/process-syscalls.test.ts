// External programs (Python's way in): a JS "program" that uses ProcessSyscalls must see the
// same files, pipes, children and limits as a wasm one.

import { describe, expect, it } from 'vitest';
import { createTestKernel } from '../../../tests/helpers/test-kernel.js';
import { Errno, KernelError } from '../errno.js';
import type { ExternalProgram } from './module-registry.js';
import type { ProcessSyscalls } from './process-syscalls.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function program(body: (sys: ProcessSyscalls, argv: string[]) => Promise<number>): ExternalProgram {
  return { kind: 'external', name: 'js', run: (process, sys) => body(sys, process.argv) };
}

async function readAll(sys: ProcessSyscalls, fd: number): Promise<string> {
  let text = '';
  for (;;) {
    const chunk = await sys.read(fd, 65536);
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
            const fd = sys.open('out.txt', { write: true, create: true, truncate: true });
            await sys.write(fd, encoder.encode(`args=${argv.slice(1).join(',')}\n`));
            sys.close(fd);
            const stat = sys.stat('out.txt');
            await sys.write(1, encoder.encode(`${stat.kind} ${stat.size} ${(stat.mode & 0o777).toString(8)}\n`));
            await sys.write(1, encoder.encode((await readAll(sys, 0)).toUpperCase()));
            try {
              sys.open('/etc/x', { write: true, create: true });
            } catch (error) {
              await sys.write(2, encoder.encode(`errno ${(error as KernelError).errno}\n`));
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
            const pid = sys.spawn({ flags: 0, program: 'probe', argv: ['probe', 'emit', '100000'], env: [], cwd: '', fds: [{ childFd: 0, parentFd: 0 }, { childFd: 1, parentFd: writeFd }, { childFd: 2, parentFd: 2 }], blob: new Uint8Array(0) });
            sys.close(writeFd);
            const text = await readAll(sys, readFd);
            const waited = await sys.wait(pid);
            await sys.write(1, encoder.encode(`${text.length} ${waited?.status}\n`));
            return 0;
          }),
        },
      ],
    });
    expect((await t.run(['jsprog'])).out).toBe('100000 0\n');
  });

  it('end at the deadline with 124', async () => {
    const t = createTestKernel({ externals: [{ tools: ['jsprog'], program: program(async (sys) => (await sys.sleep(10_000), 0)) }] });
    const result = await t.run(['jsprog'], { timeoutMs: 100 });
    expect(result.exitCode).toBe(124);
    expect(result.errorClass).toBe('timeout');
  });
});
