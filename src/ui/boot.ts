// What the page's first prompt waits for, started by the page's entry before the rest of
// its code (React, the terminal, the panels) has loaded: the tool modules' downloads and
// compilation (their manifest is built into the page), a kernel worker, the read of the
// saved workspace from IndexedDB and then the sandbox itself, made from what was read while
// the page's code loads and renders. The controller takes them over (takeWorkspace).

import wasmManifest from 'virtual:airlock-wasm';
import { Sandbox, serverExtensions, type BrowserSandboxOptions, type ExtensionSpec } from '../host/browser/index.js';
import { WorkspaceStore, type StoredWorkspace } from '../host/persistence/store.js';
import { parseSettings, sandboxOptions, type PlaygroundSettings } from './playground/settings.js';
import { acquireWorkspaceLock, type WorkspaceLock } from './workspace/tab-lock.js';

export { wasmManifest };

type Progress = (loaded: number, total: number) => void;

let started = false;
let last: [number, number] | undefined;
let sink: Progress | undefined;
let extensions: Promise<ExtensionSpec[]> | undefined;
let extensionSession: () => string | undefined = () => undefined;

/** Starts the downloads, the worker and the request for the server's extensions, once per page. */
export function prestart(): void {
  if (started) return;
  started = true;
  void hostedExtensions();
  Sandbox.prestart({
    wasmManifest,
    onProgress: (loaded, total) => {
      last = [loaded, total];
      sink?.(loaded, total);
    },
  });
}

/**
 * The extensions the page's server hosts, asked for once per page; `sessionId` (the
 * sandbox's, once there is one) names the calls in the server's audit events.
 */
export function hostedExtensions(sessionId?: () => string | undefined): Promise<ExtensionSpec[]> {
  if (sessionId !== undefined) extensionSession = sessionId;
  extensions ??= serverExtensions({ sessionId: () => extensionSession() });
  return extensions;
}

/** Where the downloads' progress goes from now on (what was reported so far first). */
export function followProgress(listener: Progress): void {
  sink = listener;
  if (last !== undefined) listener(...last);
}

/** The workspace of this page (`?ws=NAME`, default `default`). */
export function pageWorkspace(): string {
  return new URLSearchParams(location.search).get('ws') ?? 'default';
}

/** Reads `workspace`, timed as `airlock-workspace-load` (read by bench/playground.bench.ts). */
export async function loadWorkspace(store: WorkspaceStore, workspace: string): Promise<StoredWorkspace | undefined> {
  const start = performance.now();
  const loaded = await store.load(workspace);
  performance.measure('airlock-workspace-load', { start, end: performance.now() });
  return loaded;
}

/** What a playground sandbox reports to the page (the controller's handlers). */
export type SandboxHandlers = Required<Pick<BrowserSandboxOptions, 'onAuditEvent' | 'onProgress' | 'onPythonProgress' | 'onCommit'>>;

/** A playground sandbox with `settings`, starting from `state` (the controller's and the early start's). */
export function playgroundSandbox(settings: PlaygroundSettings, state: BrowserSandboxOptions['state'], extensions: ExtensionSpec[], handlers: SandboxHandlers): Promise<Sandbox> {
  return Sandbox.create({
    ...sandboxOptions(settings),
    wasmManifest,
    state,
    // A terminal is one long session: `cmd &` keeps running while the person types the
    // next command, as in bash (the process limit still counts them).
    keepBackgroundProcesses: true,
    extensions,
    ...handlers,
  });
}

/** A sandbox made before the controller exists: it gets the controller's handlers later. */
export interface EarlySandbox {
  sandbox: Sandbox;
  /** The settings it was made with (the saved workspace's). */
  settings: PlaygroundSettings;
  /** From now on its reports go to `handlers`; what it reported before is handed over first. */
  attach(handlers: SandboxHandlers): void;
}

/** Holds a sandbox's reports until the controller attaches its handlers. */
function handlerRelay(): { handlers: SandboxHandlers; attach(handlers: SandboxHandlers): void } {
  let target: SandboxHandlers | undefined;
  const held: Array<(to: SandboxHandlers) => void> = [];
  const relay = (call: (to: SandboxHandlers) => void): void => {
    if (target === undefined) held.push(call);
    else call(target);
  };
  return {
    handlers: {
      onAuditEvent: (event) => relay((to) => to.onAuditEvent(event)),
      onProgress: (loaded, total) => relay((to) => to.onProgress(loaded, total)),
      onPythonProgress: (progress) => relay((to) => to.onPythonProgress(progress)),
      onCommit: (delta) => relay((to) => to.onCommit(delta)),
    },
    attach(handlers) {
      target = handlers;
      for (const call of held.splice(0)) call(handlers);
    },
  };
}

interface EarlyWorkspace {
  workspace: string;
  store: Promise<WorkspaceStore>;
  loaded: Promise<StoredWorkspace | undefined>;
  /** The tab's lock on the workspace (undefined: another tab holds it). */
  lock: Promise<WorkspaceLock | undefined>;
  /** The sandbox made from what was loaded (rejects when the read failed: the controller reports that). */
  sandbox: Promise<EarlySandbox>;
}

let early: EarlyWorkspace | undefined;

/**
 * Opens the store, starts reading `workspace`, asks for this tab's lock on it and, once it
 * is read, creates its sandbox; the controller takes them (takeWorkspace). The sandbox is
 * made whichever tab owns the workspace: the lock decides only who saves. Resolves when
 * the read has ended (however it ended).
 */
export function prestartWorkspace(workspace: string): Promise<void> {
  const store = WorkspaceStore.open();
  const loaded = store.then((opened) => loadWorkspace(opened, workspace));
  const sandbox = loaded.then(async (stored) => {
    const settings = parseSettings(stored?.values.settings);
    const relay = handlerRelay();
    const created = await playgroundSandbox(settings, stored?.state, await hostedExtensions(), relay.handlers);
    return { sandbox: created, settings, attach: relay.attach };
  });
  // Their errors are the controller's to report, when it takes them.
  store.catch(() => undefined);
  loaded.catch(() => undefined);
  sandbox.catch(() => undefined);
  early = { workspace, store, loaded, lock: acquireWorkspaceLock(workspace), sandbox };
  return loaded.then(() => undefined, () => undefined);
}

/** The store opened and the read started by prestartWorkspace, once, if it was for `workspace`. */
export function takeWorkspace(workspace: string): EarlyWorkspace | undefined {
  const taken = early;
  early = undefined;
  if (taken?.workspace === workspace) return taken;
  // Made for another workspace: nobody takes it.
  void taken?.sandbox.then((made) => made.sandbox.destroy(), () => undefined);
  return undefined;
}
