// One tab owns a workspace at a time (Web Locks; the page is trusted). A second tab is told,
// and may take over (steal the lock: the first tab learns it lost it and stops saving) or
// fork. Without the Web Locks API every tab behaves as the owner.

export interface WorkspaceLock {
  /** Resolves when another tab takes the workspace over. */
  readonly lost: Promise<void>;
  release(): void;
}

interface LockManagerLike {
  request(name: string, options: { ifAvailable?: boolean; steal?: boolean }, callback: (lock: unknown) => Promise<void>): Promise<void>;
}

function lockManager(): LockManagerLike | undefined {
  return (navigator as unknown as { locks?: LockManagerLike }).locks;
}

/** Takes the workspace's lock; undefined when another tab holds it (and `steal` is false). */
export function acquireWorkspaceLock(workspace: string, steal = false): Promise<WorkspaceLock | undefined> {
  const locks = lockManager();
  if (locks === undefined) return Promise.resolve({ lost: new Promise<void>(() => undefined), release: () => undefined });
  return new Promise((resolve) => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((done) => (release = done));
    let resolveLost: () => void = () => undefined;
    const lost = new Promise<void>((done) => (resolveLost = done));
    const options = steal ? { steal: true } : { ifAvailable: true };
    locks
      .request(`airlock-workspace:${workspace}`, options, async (lock) => {
        if (lock === null) {
          resolve(undefined);
          return;
        }
        resolve({ lost, release });
        await held;
      })
      // Rejected (AbortError) when another tab steals the lock.
      .catch(() => resolveLost());
  });
}
