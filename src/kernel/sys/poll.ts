// poll(2) for reading: which descriptors can be read without waiting, waiting for the
// first one (or a timeout) when none can.

import { Blocker, isBlocked, type Waiting } from '../fd/blocker.js';
import type { Description } from '../fd/description.js';
import type { Scheduler } from '../proc/scheduler.js';

/** The fds of `descriptions` that are readable now, waiting until one is (`timeoutMs` 0: only looks). */
export function* pollReadable(scheduler: Scheduler, descriptions: ReadonlyArray<readonly [number, Description]>, timeoutMs: number | undefined): Waiting<number[]> {
  for (;;) {
    const ready: number[] = [];
    const waits: Blocker[] = [];
    for (const [fd, description] of descriptions) {
      // A zero-byte read answers at once when data or EOF is there, and otherwise
      // returns the wait a real read would be in.
      const probe = description.read(0);
      if (isBlocked(probe)) waits.push(probe);
      else ready.push(fd);
    }
    if (ready.length > 0 || timeoutMs === 0) {
      for (const wait of waits) wait.wake();
      return ready;
    }
    const any = new Blocker(waits.some((wait) => wait.kind === 'external') || timeoutMs !== undefined ? 'external' : 'internal', 'poll');
    for (const wait of waits) wait.onSettle(() => any.wake());
    any.onSettle(() => {
      for (const wait of waits) wait.wake();
    });
    let timedOut = false;
    if (timeoutMs !== undefined) {
      scheduler.wakeAfter(any, timeoutMs, () => {
        timedOut = true;
      });
    }
    yield any;
    if (timedOut) return [];
  }
}
