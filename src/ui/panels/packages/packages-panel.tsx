// Packages: what is installed in this sandbox (pkg's WASI programs, pip's wheels) and
// whether packages are on, with how to turn them on (Settings → Packages). Re-read after
// every change of the sandbox's files, so an install in the terminal shows up here.

import { useEffect, useState } from 'react';
import { describeSettings, packagesEnabled } from '../../playground/settings.js';
import type { PanelContext } from '../panel.js';
import { readInstalledPackages, type InstalledPackage } from './installed-packages.js';

export function PackagesPanel({ controller, view }: PanelContext) {
  const [installed, setInstalled] = useState<InstalledPackage[] | null>(null);
  const sandbox = view.phase === 'ready' ? controller.sandbox : undefined;
  useEffect(() => {
    if (sandbox === undefined) return;
    let current = true;
    void readInstalledPackages(sandbox).then((list) => current && setInstalled(list));
    return () => {
      current = false;
    };
  }, [sandbox, view.fsVersion]);
  const on = packagesEnabled(view.settings);
  return (
    <div className="packages-panel">
      <p className="panel-note" data-testid="packages-state">
        {on ? (
          <>
            Packages are on: {describeSettings(view.settings).packages}. Install with <code>pkg install NAME</code> (WASI programs) or <code>pip install NAME</code> (pure-Python wheels).
          </>
        ) : (
          <>
            Packages are off: <code>pkg install</code> and <code>pip install</code> have no source. To turn them on, give a package registry or a Python package index in{' '}
            <button className="link" onClick={() => document.getElementById('panel-settings')?.click()}>
              Settings
            </button>{' '}
            → Packages; the server’s gateway must allow its host too.
          </>
        )}
      </p>
      <h3>Installed</h3>
      {installed === null ? (
        <p>Reading…</p>
      ) : installed.length === 0 ? (
        <p data-testid="packages-empty">No packages installed. Python’s standard library is always there.</p>
      ) : (
        <ul className="packages" aria-label="Installed packages">
          {installed.map((p) => (
            <li key={`${p.kind}:${p.name}`} data-package={p.name}>
              <strong>{p.name}</strong> {p.version} <span className="hint">({p.kind === 'pkg' ? `pkg: ${p.commands.join(', ')}` : 'pip'})</span>
              {p.description !== '' ? <div>{p.description}</div> : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
