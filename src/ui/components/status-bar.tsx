// The status bar: sandbox state, limits in use, network policy, save state. Its #status
// element says "Ready" once the sandbox runs (the browser tests wait for it).

import type { PlaygroundView } from '../playground/controller.js';
import { describeSettings } from '../playground/settings.js';

const SAVE_TEXT: Record<PlaygroundView['saveState'], string> = { saved: 'saved', pending: 'saving…', error: 'not saved', off: 'not saving' };

export function StatusBar({ view }: { view: PlaygroundView }) {
  const described = describeSettings(view.settings);
  const state =
    view.phase === 'loading'
      ? 'Starting…'
      : view.restarting
        ? 'Restarting the sandbox…'
      : view.phase === 'failed'
        ? 'Failed to start'
        : `Ready: ${view.tools.length} tools. Cross-origin isolated: ${String(globalThis.crossOriginIsolated)}.`;
  return (
    <footer className="status-bar">
      <span id="status" role="status">
        {view.running ? 'Running… ' : ''}
        {state}
      </span>
      <span title="Limits in use">{described.limits}</span>
      <span title="Network policy">{described.network}</span>
      <span title="Tool allowlist">{described.tools}</span>
      <span title="Workspace persistence" data-testid="save-state">
        workspace “{view.workspace}”: {SAVE_TEXT[view.saveState]}
      </span>
    </footer>
  );
}
