// The pinned Pyodide is the one the boot code mirrors: its BUILD_ID (which a memory
// snapshot must match) and its version; and what the boot does around Pyodide's factory.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { PYODIDE_BUILD_ID, PYODIDE_VERSION, withoutMessageChannel } from './pyodide-boot.js';

const require = createRequire(import.meta.url);

describe('the pinned Pyodide', () => {
  it('has the BUILD_ID and version pyodide-boot.ts mirrors', () => {
    const loader = readFileSync(require.resolve('pyodide/pyodide.mjs'), 'utf8');
    expect(loader).toContain(PYODIDE_BUILD_ID);
    expect((JSON.parse(readFileSync(require.resolve('pyodide/package.json'), 'utf8')) as { version: string }).version).toBe(PYODIDE_VERSION);
  });
});

describe('withoutMessageChannel', () => {
  it('hides MessageChannel while the factory starts, and puts it back even when the factory throws', () => {
    const real = globalThis.MessageChannel;
    expect(withoutMessageChannel(() => typeof globalThis.MessageChannel)).toBe('undefined');
    expect(globalThis.MessageChannel).toBe(real);
    expect(() =>
      withoutMessageChannel(() => {
        throw new Error('factory failed');
      }),
    ).toThrow('factory failed');
    expect(globalThis.MessageChannel).toBe(real);
    expect(Object.getOwnPropertyDescriptor(globalThis, 'MessageChannel')?.configurable).toBe(true);
  });

  it('is the line Pyodide checks before it makes its channel', () => {
    // If a new Pyodide made its channel another way, the hiding above would not keep the
    // port (and with it every inline interpreter) from living as long as the realm.
    const script = readFileSync(require.resolve('pyodide/pyodide.asm.mjs'), 'utf8');
    expect(script).toMatch(/typeof globalThis\.MessageChannel=="function"&&\(\w+=new MessageChannel/);
    expect(script.split('new MessageChannel').length - 1).toBe(1);
  });
});
