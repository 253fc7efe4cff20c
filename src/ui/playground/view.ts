// What the playground's controller shows the page (its `view`, read by the components
// through useSyncExternalStore) and what it is made with.

import type { PythonLoadProgress } from '../../host/browser/index.js';
import type { ExampleWorkspace } from '../welcome/examples.js';
import type { Banner } from './banners.js';
import { parseSettings, type PlaygroundSettings } from './settings.js';

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
  /** The example this page filled a new workspace with (the welcome panel then opens). */
  seeded: string | null;
}

/** What the editor lets the rest of the page ask of it. */
export interface EditorHooks {
  /** Writes every tab with unsaved changes to the sandbox. */
  saveAll(): Promise<void>;
  dirtyPaths(): string[];
}

export interface ControllerOptions {
  workspace: string;
  /** Persist to IndexedDB (the playground: yes; the embed: only when asked). */
  persist: boolean;
  /** Files to create when the workspace is new. */
  initialFiles?: Record<string, string>;
  /** An example to fill the workspace with when it is new (the welcome, the Examples menu). */
  example?: ExampleWorkspace;
}

/** The view of a controller that has not started yet. */
export function initialView(options: ControllerOptions): PlaygroundView {
  return {
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
    seeded: null,
  };
}
