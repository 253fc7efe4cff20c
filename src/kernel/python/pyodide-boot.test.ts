// The pinned Pyodide is the one the boot code mirrors: its BUILD_ID (which a memory
// snapshot must match) and its version.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { PYODIDE_BUILD_ID, PYODIDE_VERSION } from './pyodide-boot.js';

const require = createRequire(import.meta.url);

describe('the pinned Pyodide', () => {
  it('has the BUILD_ID and version pyodide-boot.ts mirrors', () => {
    const loader = readFileSync(require.resolve('pyodide/pyodide.mjs'), 'utf8');
    expect(loader).toContain(PYODIDE_BUILD_ID);
    expect((JSON.parse(readFileSync(require.resolve('pyodide/package.json'), 'utf8')) as { version: string }).version).toBe(PYODIDE_VERSION);
  });
});
