// How a system call waits. A call that may have to wait (an empty pipe, a child, a timer,
// the host) is written once, as a generator that yields each Blocker it waits on and gets
// the wait's failure (EDEADLK, a kill) thrown back into it (Waiting<T>, fd/blocker.ts). Who
// runs it decides how the caller waits meanwhile:
// - an asyncified wasm process suspends its stack (abi/wasm/syscall-gate.ts, drive());
// - a caller on the kernel thread that can await (a Python worker's channel) awaits
//   (complete());
// - a caller that cannot suspend (inline Python) runs the other processes in place until
//   the wait ends (completeInline(), Scheduler.driveUntil).

import type { Waiting } from '../fd/blocker.js';
import type { Process } from '../proc/process.js';
import type { Scheduler } from '../proc/scheduler.js';

/** Runs a waiting call, awaiting each wait in the scheduler. */
export async function complete<T>(scheduler: Scheduler, process: Process, steps: Waiting<T>): Promise<T> {
  let step = steps.next();
  while (step.done !== true) {
    try {
      await scheduler.wait(process, step.value);
    } catch (error) {
      step = steps.throw(error);
      continue;
    }
    step = steps.next();
  }
  return step.value;
}

/**
 * Runs a waiting call to its end on this stack, running the other processes while it
 * waits (for a caller that cannot suspend: inline Python). A wait nothing in the sandbox
 * can end fails with EDEADLK.
 */
export function completeInline<T>(scheduler: Scheduler, process: Process, steps: Waiting<T>): T {
  let step = steps.next();
  while (step.done !== true) {
    try {
      scheduler.driveUntil(process, step.value);
    } catch (error) {
      step = steps.throw(error);
      continue;
    }
    step = steps.next();
  }
  return step.value;
}
