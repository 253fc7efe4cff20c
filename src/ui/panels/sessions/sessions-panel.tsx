// Sessions: restore points (snapshots) with their time, restore, fork into a new tab, reset
// to an empty workspace, export and import the workspace (an import shows what it holds
// and asks before replacing anything; a restore point of the old workspace is kept).

import { useRef } from 'react';
import type { PanelContext } from '../panel.js';

export function SessionsPanel({ controller, view }: PanelContext) {
  const file = useRef<HTMLInputElement>(null);
  const { snapshots } = view;
  return (
    <>
      <div className="panel-actions">
        <button onClick={() => void controller.snapshot()}>Create restore point</button>
        <button onClick={() => void controller.fork()}>Fork into a new tab</button>
      </div>
      <h3>Restore points</h3>
      {snapshots.length === 0 ? <p className="panel-note">None yet. A restore point keeps the files and the shell’s state.</p> : null}
      <ul className="snapshots">
        {snapshots.map((snapshot) => (
          <li key={snapshot.id}>
            {snapshot.label} — <time dateTime={new Date(snapshot.createdMs).toISOString()}>{new Date(snapshot.createdMs).toLocaleTimeString()}</time>{' '}
            <button onClick={() => void controller.confirmRestore(snapshot.id)} aria-label={`Restore ${snapshot.label}`}>
              Restore
            </button>
          </li>
        ))}
      </ul>
      <h3>Workspace</h3>
      <div className="panel-actions">
        <button onClick={() => void controller.downloadArchive()}>Export (.tar.gz)</button>
        <button onClick={() => file.current?.click()}>Import…</button>
        <input
          ref={file}
          type="file"
          accept=".tar,.gz,.tgz,.zip,application/gzip,application/x-tar,application/zip"
          hidden
          data-testid="import-input"
          aria-label="Archive to import"
          onChange={(e) => {
            const chosen = e.target.files?.[0];
            e.target.value = '';
            if (chosen !== undefined) void chosen.arrayBuffer().then((buffer) => controller.importArchive(new Uint8Array(buffer), chosen.name));
          }}
        />
        <button className="danger" onClick={() => void controller.confirmReset()}>
          Reset workspace…
        </button>
      </div>
    </>
  );
}
