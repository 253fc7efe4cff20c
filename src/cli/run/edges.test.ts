// `airlock run` at its edges, as a real process: a reader that goes away (EPIPE).

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../../bin/airlock.mjs', import.meta.url));

describe('airlock run', () => {
  it('ends quietly with 141 when its reader goes away (airlock run -c yes | head)', async () => {
    const child = spawn(process.execPath, [bin, 'run', '-c', 'yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Like head -1: read the first line, then close the pipe.
    const first = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    child.stdout.destroy();
    const status = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    expect(first.startsWith('y\n')).toBe(true);
    expect(stderr).toBe('');
    expect(status).toBe(141);
  });
});
