// Extensions: the commands the sandbox's host adds (docs/extensions.md), by name and
// description, and where each runs: on this page's server, or in the page embedding the
// playground. They are typed in the terminal like any command (`NAME --help`).

import { useEffect, useState } from 'react';
import type { PanelContext } from '../panel.js';

type Extension = Awaited<ReturnType<PanelContext['controller']['listExtensions']>>[number];

export function ExtensionsPanel({ controller, view }: PanelContext) {
  const [extensions, setExtensions] = useState<Extension[] | null>(null);
  useEffect(() => {
    let current = true;
    void controller.listExtensions().then((list) => current && setExtensions(list));
    return () => {
      current = false;
    };
    // A sandbox recreated with other extensions (the embed API) changes fsVersion.
  }, [controller, view.fsVersion]);
  if (extensions === null) return <p>Reading…</p>;
  return (
    <div className="extensions-panel">
      <p className="panel-note">Commands added by this sandbox’s host: run them in the terminal; <code>NAME --help</code> prints the description.</p>
      {extensions.length === 0 ? (
        <p data-testid="extensions-empty">No extensions are registered. A server adds them in its configuration (extensions.hosted), a page embedding the sandbox with registerExtensions.</p>
      ) : (
        <ul className="extensions" aria-label="Extensions">
          {extensions.map((e) => (
            <li key={e.name} data-extension={e.name}>
              <code>{e.name}</code> <span className="hint">({e.source === 'server' ? 'runs on the server' : 'runs in the embedding page'})</span>
              <div>{e.description}</div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
