// Debounced, serialized saves of one workspace: commit deltas and values collect in a
// DeltaQueue; `debounceMs` after the last change one transaction writes them. Saves never
// overlap; a failed save keeps its changes queued (retried with the next change or flush)
// and reports the error.

import type { SessionDelta } from '../types.js';
import { DeltaQueue } from './delta-queue.js';
import type { ValueKey } from './schema.js';
import type { WorkspaceStore } from './store.js';

export interface SaverOptions {
  debounceMs?: number;
  onError?: (error: Error) => void;
  onSaved?: () => void;
  /** Scheduling, replaceable in tests. */
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

export class WorkspaceSaver {
  private readonly queue = new DeltaQueue();
  private timer: unknown;
  private saving: Promise<void> = Promise.resolve();
  private enabled = true;

  constructor(
    private readonly store: WorkspaceStore,
    readonly workspace: string,
    private readonly options: SaverOptions = {},
  ) {}

  /** Stops writing (another tab owns the workspace); changes are kept until enabled again. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    if (enabled && !this.queue.empty) this.schedule();
  }

  /** Drops the pending changes (this tab is about to reload what another tab saved). */
  discard(): void {
    this.queue.take();
  }

  addDelta(delta: SessionDelta): void {
    this.queue.addDelta(delta);
    this.schedule();
  }

  setValue(key: ValueKey, value: unknown): void {
    this.queue.setValue(key, value);
    this.schedule();
  }

  private schedule(): void {
    if (!this.enabled) return;
    const clear = this.options.clearTimer ?? ((t: unknown) => clearTimeout(t as ReturnType<typeof setTimeout>));
    const set = this.options.setTimer ?? ((cb: () => void, ms: number) => setTimeout(cb, ms));
    if (this.timer !== undefined) clear(this.timer);
    this.timer = set(() => {
      this.timer = undefined;
      void this.flush();
    }, this.options.debounceMs ?? 300);
  }

  /** Writes everything pending now (after any save in progress). */
  flush(): Promise<void> {
    this.saving = this.saving.then(async () => {
      if (!this.enabled || this.queue.empty) return;
      const batch = this.queue.take();
      try {
        await this.store.save(this.workspace, batch);
        this.options.onSaved?.();
      } catch (error) {
        this.queue.putBack(batch);
        this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
      }
    });
    return this.saving;
  }
}
