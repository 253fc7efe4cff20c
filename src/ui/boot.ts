// What the page's first prompt waits for, started by the page's entry before the rest of
// its code (React, the terminal, the panels) has loaded: the tool modules' downloads and
// compilation (their manifest is built into the page), a kernel worker, and the read of the
// saved workspace from IndexedDB. The controller takes them over when it creates the sandbox.

import wasmManifest from 'virtual:airlock-wasm';
import { Sandbox, serverExtensions, type ExtensionSpec } from '../host/browser/index.js';
import { WorkspaceStore, type StoredWorkspace } from '../host/persistence/store.js';
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

interface EarlyWorkspace {
  workspace: string;
  store: Promise<WorkspaceStore>;
  loaded: Promise<StoredWorkspace | undefined>;
  /** The tab's lock on the workspace (undefined: another tab holds it). */
  lock: Promise<WorkspaceLock | undefined>;
}

let early: EarlyWorkspace | undefined;

/**
 * Opens the store, starts reading `workspace` and asks for this tab's lock on it; the
 * controller takes them (takeWorkspace).
 */
export function prestartWorkspace(workspace: string): void {
  const store = WorkspaceStore.open();
  const loaded = store.then((opened) => loadWorkspace(opened, workspace));
  // Their errors are the controller's to report, when it takes them.
  store.catch(() => undefined);
  loaded.catch(() => undefined);
  early = { workspace, store, loaded, lock: acquireWorkspaceLock(workspace) };
}

/** The store opened and the read started by prestartWorkspace, once, if it was for `workspace`. */
export function takeWorkspace(workspace: string): EarlyWorkspace | undefined {
  const taken = early;
  early = undefined;
  return taken?.workspace === workspace ? taken : undefined;
}
