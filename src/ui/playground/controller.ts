// The playground's core, outside React: it owns the sandbox (recreated from its exported
// state when settings change), persistence (incremental saves of commit deltas), the tab
// lock, snapshots, and the banners. Components read its `view` through useSyncExternalStore
// and call its methods.

import { Sandbox, type ExtensionSpec, type RunOptions, type RunResult, type SessionState } from '../../host/browser/index.js';
import { resolveExtensions } from '../../host/extensions/spec.js';
import { DEFAULT_LIMITS } from '../../protocol/limits.js';
import { WorkspaceSaver } from '../../host/persistence/saver.js';
import { WorkspaceStore } from '../../host/persistence/store.js';
import { acquireWorkspaceLock, type WorkspaceLock } from '../workspace/tab-lock.js';
import { DialogService } from '../dialogs/dialog-service.js';
import type { ExampleWorkspace } from '../welcome/examples.js';
import { ImportRefusedError, parseArchive, type ParsedArchive } from '../workspace/archive.js';
import { describeEntries, importConfirmBody, importRefusedBanner } from './import-confirm.js';
import { downloadBytes, exportWorkspace, summarizeWorkspace, writeEntries } from '../workspace/workspace-files.js';
import { bannerForRun, bannerForSaveError, otherTabBanner, type BannerContent } from './banners.js';
import { initialView, type ControllerOptions, type EditorHooks, type OpenTabs, type PlaygroundView } from './view.js';
import { parseSettings, type PlaygroundSettings } from './settings.js';
import { PageAudit } from '../panels/audit/page-audit.js';
import { followProgress, hostedExtensions, loadWorkspace, playgroundSandbox, prestart, takeWorkspace, type EarlySandbox, type SandboxHandlers } from '../boot.js';

export type { ControllerOptions, EditorHooks, OpenTabs, Ownership, Phase, PlaygroundView, SnapshotEntry } from './view.js';

export class PlaygroundController {
  private current: Sandbox | undefined;
  private store: WorkspaceStore | undefined;
  private saver: WorkspaceSaver | undefined;
  private lock: WorkspaceLock | undefined;
  /** Python loading ahead of the first python3 (preloadPython), once per page. */
  private pythonPreload: Promise<void> | undefined;
  private listeners = new Set<() => void>();
  private nextBannerId = 1;
  private history: string[] = [];
  /** The extensions this page's server hosts (fetched once), and those the embedding page registered. */
  private hostedExtensions: Promise<ExtensionSpec[]> | undefined;
  private pageExtensions: ExtensionSpec[] = [];
  private editor: EditorHooks | undefined;
  /** States of the restore points taken in this page (the store has them all). */
  private readonly snapshotStates = new Map<number, SessionState>();
  private readonly activeRuns = new Set<{ abort: AbortController; done: Promise<RunResult> }>();
  /** In-page dialogs (confirm, prompt) every part of the page asks through. */
  readonly dialogs = new DialogService();
  /** The audit events of this page's sandboxes (the audit panel; shipped to the server). */
  readonly audit = new PageAudit();
  /** Resolves with the first sandbox (window.airlock.sandbox for tests). */
  readonly ready: Promise<Sandbox>;
  private resolveReady: (sandbox: Sandbox) => void = () => undefined;
  view: PlaygroundView;

  constructor(private readonly options: ControllerOptions) {
    this.view = initialView(options);
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
    // While IndexedDB is read: download and compile the tool modules, start the kernel
    // worker (for the default message size; other settings start their own) and ask the
    // server for its extensions, so Sandbox.create() below finds them ready (the
    // playground's entry has started all of it already).
    prestart();
    followProgress((loaded, total) => this.update({ progress: { loaded, total } }));
    this.hostedExtensions ??= hostedExtensions(() => this.current?.sessionId);
    try {
      let state: SessionState | undefined;
      // The page's entry has read the workspace and started its sandbox already.
      const early = this.options.persist ? takeWorkspace(this.options.workspace) : undefined;
      if (this.options.persist) {
        const loaded = await this.openStore(early);
        state = loaded?.state;
      }
      if (!(await this.adopt(early?.sandbox))) await this.createSandbox(state);
      if (state === undefined && this.options.initialFiles !== undefined) {
        for (const [path, content] of Object.entries(this.options.initialFiles)) await this.current?.writeFile(path, content, { parents: true });
      }
      if (state === undefined && this.options.example !== undefined) await this.seed(this.options.example);
      this.update({ phase: 'ready' });
      if (this.current !== undefined) this.resolveReady(this.current);
      if (this.view.tabs.active?.endsWith('.py') === true) this.preloadPython();
    } catch (error) {
      this.update({ phase: 'failed', failure: error instanceof Error ? error.message : String(error) });
    } finally {
      this.audit.openOutbox();
    }
  }

  /** Fills a new workspace with an example's files and opens its main file. */
  private async seed(example: ExampleWorkspace): Promise<void> {
    const sandbox = this.current;
    if (sandbox === undefined) return;
    for (const [path, content] of Object.entries(example.files)) {
      await sandbox.writeFile(`/home/user/${path}`, content, { parents: true, mode: path.endsWith('.sh') ? 0o755 : 0o644 });
    }
    const open = `/home/user/${example.open}`;
    this.setTabs({ paths: [open], active: open });
    this.update({ seeded: example.id });
  }

  private async openStore(early: ReturnType<typeof takeWorkspace>): Promise<Awaited<ReturnType<WorkspaceStore['load']>>> {
    try {
      this.store = await (early?.store ?? WorkspaceStore.open());
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
    const loaded = await (early?.loaded ?? loadWorkspace(store, this.options.workspace));
    if (loaded !== undefined) {
      this.history = Array.isArray(loaded.values.history) ? (loaded.values.history as string[]) : [];
      const tabs = loaded.values.tabs as OpenTabs | undefined;
      this.update({ settings: parseSettings(loaded.values.settings), tabs: tabs !== undefined && Array.isArray(tabs.paths) ? tabs : this.view.tabs });
      // The restore points are listed for the Sessions panel, not for the first prompt.
      void store
        .listSnapshots(this.options.workspace)
        .then((snapshots) => this.update({ snapshots: snapshots.map(({ id, createdMs, label }) => ({ id, createdMs, label })) }))
        .catch(() => undefined);
    }
    await this.takeLock(false, early?.lock);
    if (typeof addEventListener === 'function') {
      addEventListener('pagehide', () => void this.saver?.flush());
      // Leaving with edits not yet in the sandbox, or changes not yet stored: save what can
      // be saved now and let the browser ask whether to leave.
      addEventListener('beforeunload', (event) => {
        const unsaved = this.hasUnsavedWork;
        void this.editor?.saveAll().then(() => this.saver?.flush());
        if (unsaved) event.preventDefault();
      });
    }
    return loaded;
  }

  private async takeLock(steal: boolean, acquiring = acquireWorkspaceLock(this.options.workspace, steal)): Promise<void> {
    const lock = await acquiring;
    this.lock = lock;
    if (lock === undefined) {
      this.saver?.setEnabled(false);
      this.update({ ownership: 'other-tab', saveState: 'off' });
      this.addBanner(otherTabBanner('open', () => void this.takeOver(), () => void this.fork()));
      return;
    }
    this.saver?.setEnabled(true);
    this.update({ ownership: 'owner' });
    void lock.lost.then(() => {
      if (this.lock !== lock) return;
      this.lock = undefined;
      this.saver?.setEnabled(false);
      this.update({ ownership: 'lost', saveState: 'off' });
      this.addBanner(otherTabBanner('taken', () => void this.takeOver(), () => void this.fork()));
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
    this.hostedExtensions ??= hostedExtensions(() => this.current?.sessionId);
    let sandbox: Sandbox | undefined;
    sandbox = await playgroundSandbox(this.view.settings, state, [...(await this.hostedExtensions), ...this.pageExtensions], this.handlers(() => sandbox));
    this.install(sandbox);
  }

  /**
   * Takes the sandbox the page's entry made from the saved workspace (boot.ts), unless it
   * was made with other settings than this page's; false when there is none to take.
   */
  private async adopt(early: Promise<EarlySandbox> | undefined): Promise<boolean> {
    let made: EarlySandbox;
    try {
      if (early === undefined) return false;
      made = await early;
    } catch {
      // Its failure is reported by the sandbox made in its place.
      return false;
    }
    if (this.pageExtensions.length > 0 || JSON.stringify(made.settings) !== JSON.stringify(this.view.settings)) {
      void made.sandbox.destroy();
      return false;
    }
    this.install(made.sandbox);
    made.attach(this.handlers(() => made.sandbox));
    return true;
  }

  private install(sandbox: Sandbox): void {
    this.current = sandbox;
    this.update({ tools: sandbox.installedTools, fsVersion: this.view.fsVersion + 1 });
  }

  /** Where the sandbox `own()` reports to (its commits count only while it is the current one). */
  private handlers(own: () => Sandbox | undefined): SandboxHandlers {
    return {
      onAuditEvent: this.audit.listener,
      onProgress: (loaded, total) => this.update({ progress: { loaded, total } }),
      onPythonProgress: (python) => this.update({ python }),
      onCommit: (delta) => {
        if (this.current === undefined || this.current !== own()) return;
        this.saver?.addDelta(delta);
        this.update({ fsVersion: this.view.fsVersion + 1, saveState: this.view.saveState === 'off' ? 'off' : 'pending' });
      },
    };
  }

  /** The extension commands of the sandbox, by where they run: the server's, then the embedding page's. */
  async listExtensions(): Promise<{ name: string; description: string; source: 'server' | 'page' }[]> {
    const hosted = await (this.hostedExtensions ?? Promise.resolve([]));
    return [
      ...hosted.map(({ name, description }) => ({ name, description, source: 'server' as const })),
      ...this.pageExtensions.map(({ name, description }) => ({ name, description, source: 'page' as const })),
    ];
  }

  /**
   * Makes `extensions` (handlers running in this page: the embed API) commands of the
   * sandbox, beside the server's; the sandbox is recreated with its files and shell state.
   */
  async setPageExtensions(extensions: ExtensionSpec[]): Promise<void> {
    const hosted = await (this.hostedExtensions ?? Promise.resolve([]));
    resolveExtensions([...hosted, ...extensions]);
    // A tool's name is refused before the sandbox is replaced, so a refusal leaves it running.
    const ours = new Set([...hosted, ...this.pageExtensions].map((extension) => extension.name));
    const tools = new Set(this.current?.installedTools ?? []);
    for (const { name } of extensions) if (tools.has(name) && !ours.has(name)) throw new Error(`extension ${name}: a tool of that name is already installed`);
    this.pageExtensions = extensions;
    await this.recreate(await this.current?.exportState());
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
    if (tabs.active?.endsWith('.py') === true && this.view.phase === 'ready') this.preloadPython();
  }

  /**
   * Loads Python before it is asked for (a .py file is open): the first python3 of a page
   * would otherwise download Pyodide and have its snapshot made inside that run.
   */
  preloadPython(): void {
    if (this.pythonPreload !== undefined || !this.view.tools.includes('python3')) return;
    this.pythonPreload = Sandbox.preloadPython({ onPythonProgress: (python) => this.update({ python }) }).catch(() => {
      // The first python3 tries again and says what failed.
      this.pythonPreload = undefined;
    });
  }

  /** The editor registers how to save its changes (before a rename, delete or unload). */
  setEditor(editor: EditorHooks | undefined): void {
    this.editor = editor;
  }

  /** Whether anything typed is not yet in the sandbox or not yet stored. */
  get hasUnsavedWork(): boolean {
    return (this.editor?.dirtyPaths().length ?? 0) > 0 || this.view.saveState === 'pending';
  }

  /** Renames a file or folder; open tabs under it follow (their edits are saved first). */
  async renamePath(from: string, to: string): Promise<void> {
    const sandbox = this.current;
    if (sandbox === undefined) throw new Error('the sandbox is not ready');
    await this.editor?.saveAll();
    const result = await sandbox.run(['mv', '-n', '--', from, to]);
    if (result.exitCode !== 0) throw new Error(result.stderr.trim() || `mv exited ${result.exitCode}`);
    const moved = (path: string): string => (path === from ? to : path.startsWith(`${from}/`) ? to + path.slice(from.length) : path);
    const { paths, active } = this.view.tabs;
    this.setTabs({ paths: paths.map(moved), active: active === null ? null : moved(active) });
    this.touchFiles();
  }

  /** Deletes a file or folder; open tabs under it close. */
  async removePath(path: string): Promise<void> {
    const sandbox = this.current;
    if (sandbox === undefined) throw new Error('the sandbox is not ready');
    await sandbox.rm(path, { recursive: true, force: true });
    this.closeTabsUnder(path);
    this.touchFiles();
  }

  /** Closes the tabs of `path` and of everything under it. */
  closeTabsUnder(path: string): void {
    const inside = (p: string): boolean => p === path || p.startsWith(`${path}/`);
    const { paths, active } = this.view.tabs;
    if (!paths.some(inside)) return;
    const rest = paths.filter((p) => !inside(p));
    this.setTabs({ paths: rest, active: active !== null && !inside(active) ? active : rest[rest.length - 1] ?? null });
  }

  /** Ctrl-C to the current run, without the kill (Python's REPL goes on). */
  interrupt(): Promise<void> {
    return this.current?.interrupt() ?? Promise.resolve();
  }

  /** Ends the session shell and starts a fresh one with the same files (`exit`). */
  async restartShell(): Promise<void> {
    const state = await this.current?.exportState();
    if (state === undefined) return;
    await this.recreate({ records: state.records, shellState: new Uint8Array(0) });
  }

  /** Makes sure `path` exists as a file (an empty one when missing), for the editor. */
  async ensureFile(path: string): Promise<void> {
    const sandbox = this.current;
    if (sandbox === undefined) throw new Error('the sandbox is not ready');
    const info = await sandbox.stat(path).catch(() => undefined);
    if (info === undefined) await sandbox.writeFile(path, '', { parents: true });
    else if (info.kind !== 'file') throw new Error(`${path} is a ${info.kind === 'dir' ? 'directory' : info.kind}, not a file`);
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
  async snapshot(label?: string): Promise<number | undefined> {
    const sandbox = this.current;
    if (sandbox === undefined) return undefined;
    const state = await sandbox.exportState();
    const id = Math.max(0, ...this.view.snapshots.map((s) => s.id)) + 1;
    const entry = { id, createdMs: Date.now(), label: label ?? `Restore point ${id}` };
    this.snapshotStates.set(id, state);
    this.update({ snapshots: [...this.view.snapshots, entry] });
    if (this.store !== undefined && this.view.ownership === 'owner') {
      try {
        await this.store.saveSnapshot({ workspace: this.options.workspace, ...entry, state });
      } catch (error) {
        this.addBanner(bannerForSaveError(error instanceof Error ? error : new Error(String(error))));
      }
    }
    return id;
  }

  /** Asks, then brings a restore point back. */
  async confirmRestore(id: number): Promise<void> {
    const entry = this.view.snapshots.find((s) => s.id === id);
    const ok = await this.dialogs.confirm({
      title: `Restore “${entry?.label ?? `restore point ${id}`}”?`,
      body: 'The files in /home/user and the shell’s state go back to that point. What changed since is replaced (create a restore point first to keep it).',
      confirmLabel: 'Restore',
    });
    if (ok) await this.restore(id);
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

  /** Asks, keeps a restore point, then empties the workspace. */
  async confirmReset(): Promise<void> {
    const ok = await this.dialogs.confirm({
      title: 'Reset to an empty workspace?',
      body: 'Every file in /home/user is deleted and the shell starts fresh. A restore point of the current workspace is kept in Sessions.',
      confirmLabel: 'Reset',
      danger: true,
    });
    if (!ok) return;
    await this.snapshot(`Before reset (${new Date().toLocaleTimeString()})`);
    await this.reset();
  }

  /** Empties the workspace. */
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

  /** Builds the workspace archive and hands it to the browser as a download. */
  async downloadArchive(): Promise<void> {
    try {
      downloadBytes(`${this.options.workspace}.tar.gz`, await this.exportArchive(), 'application/gzip');
    } catch (error) {
      this.addBanner({ level: 'error', kind: 'export', title: 'Export failed.', detail: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * Imports an archive: checks it (only a valid, non-empty tar, tar.gz or zip within the
   * limits), shows what it holds against what the workspace holds and asks, keeps a restore
   * point of the workspace, and only then replaces it. False when nothing changed.
   */
  async importArchive(data: Uint8Array, name = 'the archive', options: { confirm?: boolean } = {}): Promise<boolean> {
    const limits = { ...DEFAULT_LIMITS, ...this.view.settings.limits };
    let archive: ParsedArchive;
    try {
      archive = await parseArchive(data, limits);
    } catch (error) {
      if (!(error instanceof ImportRefusedError)) throw error;
      this.addBanner(importRefusedBanner(name, error));
      return false;
    }
    const sandbox = this.current;
    if (sandbox === undefined) return false;
    const incoming = describeEntries(archive);
    if (options.confirm !== false) {
      const now = await summarizeWorkspace(sandbox);
      const ok = await this.dialogs.confirm({
        title: `Replace the workspace with ${name}?`,
        body: importConfirmBody(name, archive, now),
        confirmLabel: 'Replace and import',
        danger: true,
      });
      if (!ok) return false;
    }
    const point = await this.snapshot(`Before importing ${name}`);
    await this.recreate(undefined);
    const fresh = this.current;
    if (fresh !== undefined) await writeEntries(fresh, archive.entries);
    this.update({ tabs: { paths: [], active: null } });
    await this.persistWhole();
    this.addBanner({ level: 'info', kind: 'import', title: `Imported ${incoming} from ${name}.`, detail: point === undefined ? undefined : `The previous workspace is kept as restore point ${point} (Sessions).` });
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

  dismissKind(kind: string): void {
    if (this.view.banners.some((b) => b.kind === kind)) this.update({ banners: this.view.banners.filter((b) => b.kind !== kind) });
  }

  async flush(): Promise<void> {
    await this.saver?.flush();
  }
}

