// The playground's core, outside React: it owns the sandbox (recreated from its exported
// state when settings change), persistence (incremental saves of commit deltas), the tab
// lock, snapshots, and the banners. Components read its `view` through useSyncExternalStore
// and call its methods.

import { Sandbox, type PythonLoadProgress, type RunOptions, type RunResult, type SessionState } from '../../host/browser/index.js';
import { browserPlatform } from '../../host/browser/platform.js';
import { DEFAULT_LIMITS } from '../../protocol/limits.js';
import { WorkspaceSaver } from '../../host/persistence/saver.js';
import { WorkspaceStore } from '../../host/persistence/store.js';
import { acquireWorkspaceLock, type WorkspaceLock } from '../workspace/tab-lock.js';
import { exportWorkspace, parseWorkspaceArchive, writeEntries } from '../workspace/workspace-files.js';
import { bannerForRun, bannerForSaveError, type Banner, type BannerContent } from './banners.js';
import { parseSettings, sandboxOptions, type PlaygroundSettings } from './settings.js';

export type Phase = 'loading' | 'ready' | 'failed';
export type Ownership = 'owner' | 'other-tab' | 'lost' | 'none';

export interface SnapshotEntry {
  id: number;
  createdMs: number;
  label: string;
}

export interface OpenTabs {
  paths: string[];
  active: string | null;
}

export interface PlaygroundView {
  phase: Phase;
  failure: string | null;
  progress: { loaded: number; total: number } | null;
  /** Loading Python on its first use (null until then). */
  python: PythonLoadProgress | null;
  workspace: string;
  settings: PlaygroundSettings;
  banners: Banner[];
  snapshots: SnapshotEntry[];
  /** Bumped after every change to the files, so views re-read them. */
  fsVersion: number;
  saveState: 'saved' | 'pending' | 'error' | 'off';
  ownership: Ownership;
  running: boolean;
  /** The sandbox is being replaced (settings, reset, import, restore, take-over). */
  restarting: boolean;
  tools: string[];
  tabs: OpenTabs;
}

export interface ControllerOptions {
  workspace: string;
  /** Persist to IndexedDB (the playground: yes; the embed: only when asked). */
  persist: boolean;
  /** Files to create when the workspace is new. */
  initialFiles?: Record<string, string>;
}

export class PlaygroundController {
  private current: Sandbox | undefined;
  private store: WorkspaceStore | undefined;
  private saver: WorkspaceSaver | undefined;
  private lock: WorkspaceLock | undefined;
  private listeners = new Set<() => void>();
  private nextBannerId = 1;
  private history: string[] = [];
  /** States of the restore points taken in this page (the store has them all). */
  private readonly snapshotStates = new Map<number, SessionState>();
  private readonly activeRuns = new Set<{ abort: AbortController; done: Promise<RunResult> }>();
  /** Resolves with the first sandbox (window.airlock.sandbox for tests). */
  readonly ready: Promise<Sandbox>;
  private resolveReady: (sandbox: Sandbox) => void = () => undefined;
  view: PlaygroundView;

  constructor(private readonly options: ControllerOptions) {
    this.view = {
      phase: 'loading',
      failure: null,
      progress: null,
      python: null,
      workspace: options.workspace,
      settings: parseSettings(undefined),
      banners: [],
      snapshots: [],
      fsVersion: 0,
      saveState: options.persist ? 'saved' : 'off',
      ownership: 'none',
      running: false,
      restarting: false,
      tools: [],
      tabs: { paths: [], active: null },
    };
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
  }

  // ---- the external store React reads --------------------------------------------------------

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getView = (): PlaygroundView => this.view;

  private update(patch: Partial<PlaygroundView>): void {
    this.view = { ...this.view, ...patch };
    for (const listener of this.listeners) listener();
  }

  get sandbox(): Sandbox | undefined {
    return this.current;
  }

  get savedHistory(): string[] {
    return this.history;
  }

  // ---- start-up ------------------------------------------------------------------------------

  async start(): Promise<void> {
    // Download and compile the tool modules while IndexedDB is read: the platform caches
    // them per page, so Sandbox.create() below finds them ready. (modules() starts no worker.)
    const noWorker = (): Worker => {
      throw new Error('airlock: the module preload starts no worker');
    };
    browserPlatform(noWorker, { onProgress: (loaded, total) => this.update({ progress: { loaded, total } }) })
      .modules()
      .catch(() => undefined);
    try {
      let state: SessionState | undefined;
      if (this.options.persist) {
        const loaded = await this.openStore();
        state = loaded?.state;
      }
      await this.createSandbox(state);
      if (state === undefined && this.options.initialFiles !== undefined) {
        for (const [path, content] of Object.entries(this.options.initialFiles)) await this.current?.writeFile(path, content, { parents: true });
      }
      this.update({ phase: 'ready' });
      if (this.current !== undefined) this.resolveReady(this.current);
    } catch (error) {
      this.update({ phase: 'failed', failure: error instanceof Error ? error.message : String(error) });
    }
  }

  private async openStore(): Promise<Awaited<ReturnType<WorkspaceStore['load']>>> {
    try {
      this.store = await WorkspaceStore.open();
    } catch (error) {
      this.addBanner({ level: 'warning', kind: 'storage', title: 'This browser does not let the playground store files; nothing will be saved.', detail: error instanceof Error ? error.message : String(error) });
      this.update({ saveState: 'off' });
      return undefined;
    }
    const store = this.store;
    this.saver = new WorkspaceSaver(store, this.options.workspace, {
      onError: (error) => {
        this.addBanner(bannerForSaveError(error));
        this.update({ saveState: 'error' });
      },
      onSaved: () => {
        this.dismissKind('quota');
        this.dismissKind('save');
        this.update({ saveState: 'saved' });
      },
    });
    const loadStart = performance.now();
    const loaded = await store.load(this.options.workspace);
    // The IndexedDB read of the workspace, read by bench/playground.bench.ts.
    performance.measure('airlock-workspace-load', { start: loadStart, end: performance.now() });
    if (loaded !== undefined) {
      this.history = Array.isArray(loaded.values.history) ? (loaded.values.history as string[]) : [];
      const tabs = loaded.values.tabs as OpenTabs | undefined;
      this.update({ settings: parseSettings(loaded.values.settings), tabs: tabs !== undefined && Array.isArray(tabs.paths) ? tabs : this.view.tabs });
      const snapshots = await store.listSnapshots(this.options.workspace);
      this.update({ snapshots: snapshots.map(({ id, createdMs, label }) => ({ id, createdMs, label })) });
    }
    await this.takeLock(false);
    if (typeof addEventListener === 'function') addEventListener('pagehide', () => void this.saver?.flush());
    return loaded;
  }

  private async takeLock(steal: boolean): Promise<void> {
    const lock = await acquireWorkspaceLock(this.options.workspace, steal);
    this.lock = lock;
    if (lock === undefined) {
      this.saver?.setEnabled(false);
      this.update({ ownership: 'other-tab', saveState: 'off' });
      this.addBanner({
        level: 'warning',
        kind: 'other-tab',
        title: 'This workspace is open in another tab; this tab does not save, so nothing is overwritten.',
        detail: 'Take it over here (the other tab stops saving), or fork it into a new workspace.',
        actions: [
          { label: 'Take over', run: () => void this.takeOver() },
          { label: 'Fork', run: () => void this.fork() },
        ],
      });
      return;
    }
    this.saver?.setEnabled(true);
    this.update({ ownership: 'owner' });
    void lock.lost.then(() => {
      if (this.lock !== lock) return;
      this.lock = undefined;
      this.saver?.setEnabled(false);
      this.update({ ownership: 'lost', saveState: 'off' });
      this.addBanner({
        level: 'warning',
        kind: 'other-tab',
        title: 'Another tab took this workspace over; this tab stopped saving.',
        detail: 'Take it back (reloads the saved workspace here), or fork what this tab has into a new workspace.',
        actions: [
          { label: 'Take over', run: () => void this.takeOver() },
          { label: 'Fork', run: () => void this.fork() },
        ],
      });
    });
  }

  /** Steals the workspace from the other tab and reloads what it saved. */
  async takeOver(): Promise<void> {
    this.dismissKind('other-tab');
    // What this tab changed while it did not own the workspace is not written over what the
    // owner saved: the saved workspace is reloaded instead.
    this.saver?.discard();
    await this.takeLock(true);
    const loaded = await this.store?.load(this.options.workspace);
    await this.recreate(loaded?.state);
    this.update({ saveState: 'saved' });
  }

  private async createSandbox(state: SessionState | undefined): Promise<void> {
    const sandbox = await Sandbox.create({
      ...sandboxOptions(this.view.settings),
      state,
      onProgress: (loaded, total) => this.update({ progress: { loaded, total } }),
      onPythonProgress: (python) => this.update({ python }),
      onCommit: (delta) => {
        if (this.current !== sandbox) return;
        this.saver?.addDelta(delta);
        this.update({ fsVersion: this.view.fsVersion + 1, saveState: this.view.saveState === 'off' ? 'off' : 'pending' });
      },
    });
    this.current = sandbox;
    this.update({ tools: sandbox.installedTools, fsVersion: this.view.fsVersion + 1 });
  }

  /** Replaces the sandbox with a fresh one holding `state` (settings change, reset, take-over). */
  private async recreate(state: SessionState | undefined): Promise<void> {
    this.update({ restarting: true });
    try {
      await this.stopRuns();
      const old = this.current;
      this.current = undefined;
      await old?.destroy();
      await this.createSandbox(state);
    } finally {
      this.update({ restarting: false });
    }
  }

  // ---- runs ----------------------------------------------------------------------------------

  async run(command: string, options: RunOptions = {}): Promise<RunResult> {
    const sandbox = this.current;
    if (sandbox === undefined) throw new Error('the sandbox is not ready');
    // Each run gets its own AbortController so that replacing the sandbox can stop it.
    const abort = new AbortController();
    const outer = options.signal;
    if (outer?.aborted) abort.abort();
    else outer?.addEventListener('abort', () => abort.abort(), { once: true });
    const done = sandbox.run(command, { ...options, signal: abort.signal });
    const entry = { abort, done };
    this.activeRuns.add(entry);
    this.update({ running: true });
    try {
      const result = await done;
      const banner = bannerForRun(command, result, options.timeoutMs ?? sandbox.limits.timeoutMs);
      if (banner !== undefined) this.addBanner(banner);
      return result;
    } finally {
      this.activeRuns.delete(entry);
      this.update({ running: this.activeRuns.size > 0, fsVersion: this.view.fsVersion + 1 });
    }
  }

  /**
   * Interrupts the runs in progress and waits for them to end (at most the host's grace
   * period after the interrupt): a sandbox must not be replaced under a running command,
   * whose result would then never come.
   */
  private async stopRuns(): Promise<void> {
    const runs = [...this.activeRuns];
    for (const run of runs) run.abort.abort();
    await Promise.all(runs.map((run) => run.done.catch(() => undefined)));
  }

  saveHistory(entries: readonly string[]): void {
    this.history = [...entries];
    this.saver?.setValue('history', this.history);
  }

  setTabs(tabs: OpenTabs): void {
    this.update({ tabs });
    this.saver?.setValue('tabs', tabs);
  }

  /** Asks for the files to be re-read (after a change the views made themselves). */
  touchFiles(): void {
    this.update({ fsVersion: this.view.fsVersion + 1 });
  }

  // ---- settings ------------------------------------------------------------------------------

  async applySettings(settings: PlaygroundSettings): Promise<void> {
    this.update({ restarting: true });
    try {
      await this.stopRuns();
      const state = await this.current?.exportState();
      this.update({ settings });
      this.saver?.setValue('settings', settings);
      await this.recreate(state);
      this.addBanner({ level: 'info', kind: 'settings', title: 'Settings applied: the sandbox was restarted with its files and shell state.' });
    } catch (error) {
      this.addBanner({ level: 'error', kind: 'settings', title: 'The settings could not be applied.', detail: error instanceof Error ? error.message : String(error) });
    } finally {
      this.update({ restarting: false });
    }
  }

  // ---- sessions ------------------------------------------------------------------------------

  /** Takes a restore point: the whole session state, kept with the workspace. */
  async snapshot(): Promise<void> {
    const sandbox = this.current;
    if (sandbox === undefined) return;
    const state = await sandbox.exportState();
    const id = Math.max(0, ...this.view.snapshots.map((s) => s.id)) + 1;
    const entry = { id, createdMs: Date.now(), label: `Restore point ${id}` };
    this.snapshotStates.set(id, state);
    this.update({ snapshots: [...this.view.snapshots, entry] });
    if (this.store !== undefined && this.view.ownership === 'owner') {
      try {
        await this.store.saveSnapshot({ workspace: this.options.workspace, ...entry, state });
      } catch (error) {
        this.addBanner(bannerForSaveError(error instanceof Error ? error : new Error(String(error))));
      }
    }
  }

  /** Brings a restore point back: a fresh sandbox from its state, saved as the workspace. */
  async restore(id: number): Promise<void> {
    const state = this.snapshotStates.get(id) ?? (await this.store?.loadSnapshot(this.options.workspace, id))?.state;
    if (state === undefined) {
      this.addBanner({ level: 'error', kind: 'restore', title: `Restore point ${id} is gone.`, detail: 'It was not saved (another tab owned the workspace, or storage was full).' });
      return;
    }
    await this.recreate(state);
    await this.persistWhole();
  }

  /** Copies this workspace into a new one and opens it in a new browser tab. */
  async fork(): Promise<string | undefined> {
    const sandbox = this.current;
    if (sandbox === undefined) return undefined;
    const id = `ws-${Date.now().toString(36)}`;
    const state = await sandbox.exportState();
    const store = this.store ?? (await WorkspaceStore.open());
    await store.replace(id, state, { history: this.history, settings: this.view.settings, tabs: this.view.tabs });
    const url = new URL(location.href);
    url.searchParams.set('ws', id);
    window.open(url.href, '_blank');
    return id;
  }

  /** Empties the workspace (the page asks for confirmation first). */
  async reset(): Promise<void> {
    await this.recreate(undefined);
    this.update({ tabs: { paths: [], active: null } });
    await this.persistWhole();
  }

  /** Writes the whole current state (after restore, reset, import replace it). */
  private async persistWhole(): Promise<void> {
    const sandbox = this.current;
    if (sandbox === undefined || this.store === undefined || this.view.ownership !== 'owner') return;
    await this.saver?.flush();
    try {
      await this.store.replace(this.options.workspace, await sandbox.exportState(), { tabs: this.view.tabs });
      this.update({ saveState: 'saved' });
    } catch (error) {
      this.addBanner(bannerForSaveError(error instanceof Error ? error : new Error(String(error))));
    }
  }

  // ---- export / import -----------------------------------------------------------------------

  async exportArchive(): Promise<Uint8Array> {
    const sandbox = this.current;
    if (sandbox === undefined) throw new Error('the sandbox is not ready');
    return exportWorkspace(sandbox);
  }

  /** Validates the archive first; only a valid one replaces the workspace. */
  async importArchive(data: Uint8Array): Promise<boolean> {
    const limits = { ...DEFAULT_LIMITS, ...this.view.settings.limits };
    let entries;
    try {
      entries = await parseWorkspaceArchive(data, limits);
    } catch (error) {
      const [title, ...rest] = (error instanceof Error ? error.message : String(error)).split('\n');
      this.addBanner({ level: 'error', kind: 'import', title: `Import refused: ${title ?? ''}`, detail: `${rest.join('; ')}. Nothing was changed.` });
      return false;
    }
    await this.recreate(undefined);
    const sandbox = this.current;
    if (sandbox !== undefined) await writeEntries(sandbox, entries);
    this.update({ tabs: { paths: [], active: null } });
    await this.persistWhole();
    this.addBanner({ level: 'info', kind: 'import', title: `Imported ${entries.length} entries into /home/user.` });
    return true;
  }

  // ---- banners -------------------------------------------------------------------------------

  addBanner(content: BannerContent): void {
    const banners = this.view.banners.filter((b) => b.kind !== content.kind);
    this.update({ banners: [...banners, { ...content, id: this.nextBannerId++ }] });
  }

  dismiss(id: number): void {
    this.update({ banners: this.view.banners.filter((b) => b.id !== id) });
  }

  private dismissKind(kind: string): void {
    if (this.view.banners.some((b) => b.kind === kind)) this.update({ banners: this.view.banners.filter((b) => b.kind !== kind) });
  }

  async flush(): Promise<void> {
    await this.saver?.flush();
  }
}
