// Sessions: restore points (snapshots) with their time, restore, fork into a new tab, reset
// to an empty workspace (confirmed), export and import the workspace as .tar.gz.

import { useEffect, useRef } from 'react';
import type { SnapshotEntry } from '../playground/controller.js';

interface SessionsPanelProps {
  snapshots: readonly SnapshotEntry[];
  onSnapshot: () => void;
  onRestore: (id: number) => void;
  onFork: () => void;
  onReset: () => void;
  onExport: () => void;
  onImport: (data: Uint8Array) => void;
  onClose: () => void;
}

export function SessionsPanel({ snapshots, onSnapshot, onRestore, onFork, onReset, onExport, onImport, onClose }: SessionsPanelProps) {
  const file = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // Keyboard users land in the panel they opened.
  useEffect(() => heading.current?.focus(), []);
  return (
    <aside className="panel" aria-label="Sessions">
      <h2 tabIndex={-1} ref={heading}>Sessions</h2>
      <div className="panel-actions">
        <button onClick={onSnapshot}>Create restore point</button>
        <button onClick={onFork}>Fork into a new tab</button>
      </div>
      <h3>Restore points</h3>
      {snapshots.length === 0 ? <p className="panel-note">None yet. A restore point keeps the files and the shell’s state.</p> : null}
      <ul className="snapshots">
        {snapshots.map((snapshot) => (
          <li key={snapshot.id}>
            {snapshot.label} — <time dateTime={new Date(snapshot.createdMs).toISOString()}>{new Date(snapshot.createdMs).toLocaleTimeString()}</time>{' '}
            <button onClick={() => onRestore(snapshot.id)}>Restore</button>
          </li>
        ))}
      </ul>
      <h3>Workspace</h3>
      <div className="panel-actions">
        <button onClick={onExport}>Export (.tar.gz)</button>
        <button onClick={() => file.current?.click()}>Import…</button>
        <input
          ref={file}
          type="file"
          accept=".tar,.gz,.tgz,application/gzip,application/x-tar"
          hidden
          data-testid="import-input"
          onChange={(e) => {
            const chosen = e.target.files?.[0];
            e.target.value = '';
            if (chosen !== undefined) void chosen.arrayBuffer().then((buffer) => onImport(new Uint8Array(buffer)));
          }}
        />
        <button
          className="danger"
          onClick={() => {
            if (window.confirm('Reset to an empty workspace? Every file in /home/user is deleted. Export first to keep a copy.')) onReset();
          }}
        >
          Reset workspace…
        </button>
      </div>
      <div className="panel-actions">
        <button onClick={onClose}>Close</button>
      </div>
    </aside>
  );
}
