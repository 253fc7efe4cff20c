// The scheduler's ready queue and driveUntil(): a wait's continuation runs from the queue
// (a microtask normally, in place under driveUntil), and a process that cannot suspend
// gets the others run synchronously while it waits. The last group drives real asyncified
// probe processes from such a process, the way inline Python does.

import { describe, expect, it } from 'vitest';
import { createTestKernel } from '../../../tests/helpers/test-kernel.js';
import { Errno, KernelError } from '../errno.js';
import { Blocker } from '../fd/blocker.js';
import { DEADLINE_STATUS, ProcessKilled } from './exit.js';
import type { ExternalProgram } from '../sys/external-program.js';
import type { Syscalls } from '../sys/syscalls.js';
import { Scheduler, type Schedulable } from './scheduler.js';

function schedulable(pid: number): Schedulable {
  return { pid, blocker: undefined, pendingKill: undefined, deadlineExempt: false };
}

describe('the ready queue', () => {
  it('runs a parked continuation from a microtask after the wake, once', async () => {
    const scheduler = new Scheduler();
    const process = schedulable(1);
    scheduler.add(process);
    const blocker = new Blocker('internal', 'test');
    let runs = 0;
    scheduler.park(process, blocker, () => (runs += 1));
    expect(process.blocker).toBe(blocker);
    blocker.wake();
    blocker.wake();
    expect(runs).toBe(0);
    expect(process.blocker).toBeUndefined();
    await Promise.resolve();
    expect(runs).toBe(1);
  });

  it('hands a failure to the continuation, and no unhandled rejection is made', async () => {
    const scheduler = new Scheduler();
    const process = schedulable(1);
    scheduler.add(process);
    const blocker = new Blocker('internal', 'test');
    let seen: unknown;
    scheduler.park(process, blocker, () => (seen = blocker.failure));
    blocker.fail(new KernelError(Errno.DEADLK, 'test'));
    await Promise.resolve();
    expect(seen).toBeInstanceOf(KernelError);
  });
});

describe('driveUntil', () => {
  it('runs the other continuations in place until the wait ends', () => {
    const scheduler = new Scheduler();
    const [writer, reader] = [schedulable(1), schedulable(2)];
    scheduler.add(writer);
    scheduler.add(reader);
    const writerWait = new Blocker('internal', 'pipe write');
    const readerWait = new Blocker('internal', 'pipe read');
    const order: string[] = [];
    scheduler.park(writer, writerWait, () => {
      order.push('writer resumed');
      readerWait.wake();
    });
    writerWait.wake();
    scheduler.driveUntil(reader, readerWait);
    order.push('reader resumed');
    expect(order).toEqual(['writer resumed', 'reader resumed']);
  });

  it('ends a wait nothing can satisfy with EDEADLK, naming an external one', () => {
    const scheduler = new Scheduler();
    const process = schedulable(1);
    scheduler.add(process);
    expect(() => scheduler.driveUntil(process, new Blocker('internal', 'pipe read'))).toThrow(/deadlock/);
    const external = new Blocker('external', 'terminal input');
    let error: unknown;
    try {
      scheduler.driveUntil(process, external);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KernelError);
    expect((error as KernelError).errno).toBe(Errno.DEADLK);
    expect((error as KernelError).message).toMatch(/cannot wait for terminal input/);
    expect(process.blocker).toBeUndefined();
  });

  it('wakes timers and yields by itself, without the event loop', () => {
    const scheduler = new Scheduler();
    const process = schedulable(1);
    scheduler.add(process);
    const sleep = new Blocker('external', 'sleep');
    let due = false;
    scheduler.wakeAfter(sleep, 5, () => (due = true));
    scheduler.driveUntil(process, sleep);
    expect(due).toBe(true);
    const turn = scheduler.yieldTurn();
    const after = new Blocker('internal', 'after the yield');
    scheduler.whenSettled(turn, () => after.wake());
    scheduler.driveUntil(process, after);
    expect(turn.settled).toBe(true);
  });

  it('asks for a yield only after YIELD_EVERY_MS without any turn of the event loop', async () => {
    const scheduler = new Scheduler();
    expect(scheduler.shouldYield()).toBe(false);
    // The event loop had turns meanwhile (a timer here; a host message in a sandbox): the
    // host is not starved, however long ago the last yieldTurn() was.
    await new Promise((resolve) => setTimeout(resolve, 40));
    await new Promise((resolve) => setImmediate(resolve));
    expect(scheduler.shouldYield()).toBe(false);
    // No turn since: as if the thread had been busy that long.
    expect(scheduler.shouldYield(performance.now() + 30)).toBe(true);
  });

  it('ends the wait at the deadline with the deadline status', () => {
    const scheduler = new Scheduler();
    const process = schedulable(1);
    scheduler.add(process);
    scheduler.setDeadline(performance.now() + 5);
    const sleep = new Blocker('external', 'sleep');
    scheduler.wakeAfter(sleep, 60_000);
    let error: unknown;
    try {
      scheduler.driveUntil(process, sleep);
    } catch (caught) {
      error = caught;
    }
    scheduler.setDeadline(undefined);
    expect(error).toBeInstanceOf(ProcessKilled);
    expect((error as ProcessKilled).status).toBe(DEADLINE_STATUS);
  });
});

describe('the deadline timer, kept from run to run', () => {
  /** A scheduler with one process, after a run whose deadline was `ms` away. */
  const afterRun = (ms: number): { scheduler: Scheduler; process: Schedulable } => {
    const scheduler = new Scheduler();
    const process = schedulable(1);
    scheduler.add(process);
    scheduler.setDeadline(performance.now() + ms);
    scheduler.setDeadline(undefined);
    return { scheduler, process };
  };

  /** Resolves once `process`'s wait is ended by the deadline. */
  const endedByDeadline = (scheduler: Scheduler, process: Schedulable): Promise<boolean> => {
    const blocker = new Blocker('external', 'sleep');
    scheduler.wakeAfter(blocker, 60_000);
    return scheduler.wait(process, blocker).then(
      () => false,
      () => true,
    );
  };

  it('ends a run at its own deadline after a run with a longer one', async () => {
    const { scheduler, process } = afterRun(60_000);
    scheduler.setDeadline(performance.now() + 20);
    // (Held up by the old timer, the wait would outlast the test's timeout.)
    expect(await endedByDeadline(scheduler, process)).toBe(true);
    scheduler.setDeadline(undefined);
  });

  it('does not end a run early after a run with a shorter deadline (the old timer fires first)', async () => {
    const { scheduler, process } = afterRun(5);
    const longer = performance.now() + 80;
    scheduler.setDeadline(longer);
    expect(await endedByDeadline(scheduler, process)).toBe(true);
    expect(performance.now()).toBeGreaterThanOrEqual(longer);
    scheduler.setDeadline(undefined);
  });

  it('ends nothing when it fires with no run in progress', async () => {
    const { process } = afterRun(5);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(process.pendingKill).toBeUndefined();
  });
});

/** A process that cannot suspend: it waits only through completeInline(), like inline Python. */
function synchronousProgram(body: (sys: Syscalls) => string): ExternalProgram {
  return {
    name: 'sync',
    async run(_process, sys) {
      let text: string;
      try {
        text = body(sys);
      } catch (error) {
        text = `error ${error instanceof KernelError ? error.errno : String(error)}\n`;
      }
      await sys.complete(sys.writeAll(1, new TextEncoder().encode(text)));
      return 0;
    },
  };
}

/** Starts `probe args...` with its stdout on a new pipe; returns the pid and the read end. */
function spawnProbe(sys: Syscalls, args: string[]): { pid: number; readFd: number } {
  const [readFd, writeFd] = sys.pipe();
  const pid = sys.spawn({ ignoreSigpipe: false, newGroup: false, program: 'probe', argv: ['probe', ...args], env: [], cwd: '/home/user', fds: [{ childFd: 1, parentFd: writeFd }, { childFd: 2, parentFd: 2 }], blob: new Uint8Array(0) });
  sys.close(writeFd);
  return { pid, readFd };
}

function readAll(sys: Syscalls, fd: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (;;) {
    const part = sys.completeInline(sys.read(fd, 65536));
    if (part.length === 0) return parts;
    parts.push(part);
  }
}

describe('a synchronous process driving asyncified ones', () => {
  const programs: Record<string, ExternalProgram> = {
    'sync-emit': synchronousProgram((sys) => {
      // The child fills the 64 KiB pipe several times: each time it suspends, and only
      // this process's reads, driving it, can resume it.
      const { pid, readFd } = spawnProbe(sys, ['emit', '300000']);
      const total = readAll(sys, readFd).reduce((sum, part) => sum + part.length, 0);
      const status = sys.completeInline(sys.wait(pid))?.status;
      return `read ${total} status ${String(status)}\n`;
    }),
    'sync-sleep': synchronousProgram((sys) => {
      const { pid, readFd } = spawnProbe(sys, ['sleep', '20']);
      readAll(sys, readFd);
      return `slept, status ${String(sys.completeInline(sys.wait(pid))?.status)}\n`;
    }),
    'sync-self': synchronousProgram((sys) => {
      const [readFd] = sys.pipe();
      sys.completeInline(sys.read(readFd, 1));
      return 'unreachable\n';
    }),
  };
  const t = createTestKernel({ externals: Object.entries(programs).map(([tool, program]) => ({ tools: [tool], program })) });

  it('resumes a writer suspended on a full pipe, and sees its exit, all in place', async () => {
    expect((await t.run(['sync-emit'])).out).toBe('read 300000 status 0\n');
  });

  it('lets a child sleep by the clock', async () => {
    expect((await t.run(['sync-sleep'])).out).toBe('slept, status 0\n');
  });

  it('fails a wait on its own pipe with EDEADLK', async () => {
    expect((await t.run(['sync-self'])).out).toBe(`error ${Errno.DEADLK}\n`);
  });
});
