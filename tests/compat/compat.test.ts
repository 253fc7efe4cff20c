// The differential suites (tests/compat/<suite>/*.yaml), each case in a fresh sandbox
// against real bash and GNU tools. A case marked known_failure must still differ (the
// mark carries the reason, listed in docs/compat.md); when it starts passing the mark must go.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSuite, suites } from './cases.js';
import { compare } from './compare.js';
import { runWithBash } from './reference.js';
import { createSandboxRunner, drainWarmPool } from './sandbox-target.js';

const shellBuilt = existsSync(fileURLToPath(new URL('../../public/wasm/shell.wasm', import.meta.url)));
const runInSandbox = createSandboxRunner();

afterAll(() => drainWarmPool());

for (const suite of suites()) {
  describe.skipIf(!shellBuilt)(`compat: ${suite}`, { concurrent: true, timeout: 60_000 }, () => {
    for (const c of loadSuite(suite)) {
      if (c.skip) {
        it.skip(`${c.id} (skipped: ${c.skip})`, () => {});
        continue;
      }
      const test = c.known_failure ? it.fails : it;
      test(c.id, async () => {
        const [expected, actual] = await Promise.all([runWithBash(c), runInSandbox(c)]);
        const verdict = compare(c, expected, actual);
        expect(verdict.pass, verdict.detail).toBe(true);
      });
    }
  });
}
