// Where a kernel cannot start workers (a browser page without SharedArrayBuffer), a foreign
// WASI program ends with status 126 and says why, and wasi-run is not a command.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createTestKernel } from '../helpers/test-kernel.js';

const echo = readFileSync(fileURLToPath(new URL('./bin/echo.wasm', import.meta.url)));

describe('a kernel without foreign-program workers', () => {
  it('refuses a foreign program with 126, naming the reason', async () => {
    const t = createTestKernel();
    t.kernel.fs.writeFile('/tmp/echo.wasm', echo, { mode: 0o755 });
    const result = await t.run(['/tmp/echo.wasm', 'hi']);
    expect(result.exitCode).toBe(126);
    expect(result.err).toBe('/tmp/echo.wasm: cannot run a WASI program here: this sandbox cannot start workers (no SharedArrayBuffer: the page is not cross-origin isolated)\n');
    expect(t.kernel.programs.has('wasi-run')).toBe(false);
  });
});
