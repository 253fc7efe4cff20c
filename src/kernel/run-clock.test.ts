// The run's clock held while a wait is the sandbox's, not the program's (Python's
// interpreter loading): the deadline moves by the time held, the host is told.

import { describe, expect, it } from 'vitest';
import { createTestKernel } from '../../tests/helpers/test-kernel.js';
import type { ExternalProgram } from './sys/external-program.js';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits `ms` outside any syscall (as a program waiting for its interpreter), then makes one. */
function waiter(hold: boolean): ExternalProgram {
  return {
    name: 'waiter',
    async run(_process, sys) {
      const release = hold ? sys.holdDeadline() : undefined;
      await pause(400);
      release?.();
      release?.();
      await sys.complete(sys.writeAll(1, new TextEncoder().encode('after\n')));
      return 0;
    },
  };
}

describe('the run clock', () => {
  it('does not count a held wait toward the deadline, and tells the host when it stops and goes on', async () => {
    const clock: Array<[number, boolean]> = [];
    const t = createTestKernel({
      events: { runClock: (runId, held) => clock.push([runId, held]) },
      externals: [
        { tools: ['held'], program: waiter(true) },
        { tools: ['unheld'], program: waiter(false) },
      ],
    });
    const held = await t.run(['held'], { timeoutMs: 200 });
    expect(held).toMatchObject({ exitCode: 0, out: 'after\n' });
    expect(clock).toEqual([
      [1, true],
      [1, false],
    ]);
    // The same wait without the hold passes the deadline: the next syscall ends it.
    expect((await t.run(['unheld'], { timeoutMs: 200 })).exitCode).toBe(124);
    expect(clock).toHaveLength(2);
  });
});
