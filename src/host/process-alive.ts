// Whether a process of this machine still runs, for the stale-lock and orphan sweeps (the
// audit log's writer lock, the queue workers' scratch directories).

/** True while `pid` runs: signal 0 checks without sending; EPERM means it runs as someone else. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
