// The differential suites (tests/compat/<suite>/*.yaml): every case runs in a sandbox
// (sandbox-target.ts: one per case file, restored to new before each case) and is compared
// with the real tool's result recorded beside it (recording.ts; refreshed by
// `npm run compat:record`). A case marked known_failure must still differ (the mark carries
// the reason, listed in docs/compat.md); when it starts passing the mark must go.
//
// The cases run in one batch before the tests, which then only compare: the batch runs
// several case files at once, which per-test concurrency could not arrange (it would start
// the first tests of one file together). Only the cases whose tests are selected run
// (`vitest -t` marks the others skipped before the hook).

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, type RunnerTestSuite } from 'vitest';
import { loadSuite, suites, type LoadedCase } from './cases.js';
import { compare } from './compare.js';
import { recordedOutcome, recordedOutcomes } from './recording.js';
import type { Outcome } from './reference.js';
import { runInSandboxes } from './sandbox-target.js';

const shellBuilt = existsSync(fileURLToPath(new URL('../../public/wasm/shell.wasm', import.meta.url)));
const all = suites().map((suite) => ({ suite, cases: loadSuite(suite) }));
const byId = new Map<string, LoadedCase>(all.flatMap(({ cases }) => cases.map((c) => [c.id, c] as const)));
const recorded = recordedOutcomes([...byId.values()]);
let outcomes = new Map<string, Outcome>();

function selectedTests(suite: RunnerTestSuite): string[] {
  return suite.tasks.flatMap((task) => (task.type === 'suite' ? selectedTests(task) : task.mode === 'run' ? [task.name] : []));
}

// (vitest wants the context destructured even when unused; the second argument is the file.)
beforeAll(async ({}, file) => {
  if (!shellBuilt) return;
  const selected = selectedTests(file).map((id) => byId.get(id)).filter((c): c is LoadedCase => c !== undefined);
  outcomes = await runInSandboxes(selected);
}, 60 * 60_000);

for (const { suite, cases } of all) {
  describe.skipIf(!shellBuilt)(`compat: ${suite}`, () => {
    for (const c of cases) {
      if (c.skip) {
        it.skip(`${c.id} (skipped: ${c.skip})`, () => {});
        continue;
      }
      it(c.id, () => {
        const expected = recordedOutcome(recorded, c);
        const actual = outcomes.get(c.id);
        if (actual === undefined) throw new Error(`${c.id}: the batch did not run this case`);
        const verdict = compare(c, expected, actual);
        if (c.known_failure) expect(verdict.pass, `${c.id} now matches the recording: remove its known_failure mark`).toBe(false);
        else expect(verdict.pass, verdict.detail).toBe(true);
      });
    }
  });
}
