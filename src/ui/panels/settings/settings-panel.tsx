// Settings: network allowlist, tool allowlist, limits and package sources. Applying restarts the sandbox
// from its exported state with the new options; the panel says what the sandbox may do.

import { useState } from 'react';
import { DEFAULT_LIMITS } from '../../../protocol/limits.js';
import { describeSettings, EDITABLE_LIMITS, formatLimit, packageSourceProblem, parseLimit, type PlaygroundSettings } from '../../playground/settings.js';
import type { PanelContext } from '../panel.js';

const lines = (text: string): string[] => text.split(/[\s,]+/).map((s) => s.trim()).filter((s) => s.length > 0);

export function SettingsPanel({ controller, view, close }: PanelContext) {
  const { settings, tools: installedTools } = view;
  const onApply = (next: PlaygroundSettings): void => {
    close();
    void controller.applySettings(next);
  };
  const [network, setNetwork] = useState(settings.networkAllow.join('\n'));
  const [allTools, setAllTools] = useState(settings.tools === null);
  const [tools, setTools] = useState((settings.tools ?? installedTools).join(' '));
  const [limits, setLimits] = useState<Record<string, string>>(
    Object.fromEntries(EDITABLE_LIMITS.map(({ name, kind }) => [name, formatLimit(kind, settings.limits[name] ?? DEFAULT_LIMITS[name])])),
  );
  const [registry, setRegistry] = useState(settings.packageRegistry ?? '');
  const [pythonIndex, setPythonIndex] = useState(settings.pythonIndex ?? '');
  const [error, setError] = useState('');

  const draft = (): PlaygroundSettings | undefined => {
    const source = (label: string, text: string): string | null | undefined => {
      const url = text.trim();
      if (url === '') return null;
      const problem = packageSourceProblem(url);
      if (problem !== undefined) setError(`${label}: ${problem}.`);
      return problem === undefined ? url : undefined;
    };
    const packageRegistry = source('Package registry', registry);
    const pythonSource = source('Python package index', pythonIndex);
    if (packageRegistry === undefined || pythonSource === undefined) return undefined;
    const next: PlaygroundSettings = { networkAllow: lines(network), tools: allTools ? null : lines(tools), limits: {}, packageRegistry, pythonIndex: pythonSource };
    for (const { name, label, kind, hint } of EDITABLE_LIMITS) {
      const value = parseLimit(kind, limits[name] ?? '');
      if (value === undefined) {
        setError(`${label}: “${limits[name] ?? ''}” is not a ${kind === 'bytes' ? 'size' : kind === 'duration' ? 'duration' : 'number'} (${hint}).`);
        return undefined;
      }
      if (value !== DEFAULT_LIMITS[name]) next.limits[name] = value;
    }
    setError('');
    return next;
  };
  const described = describeSettings(settings);

  return (
    <>
      <p className="panel-note">
        Now: {described.network}; {described.tools}; {described.limits}; {described.packages}.
      </p>
      <fieldset>
        <legend>Network</legend>
        <label>
          Allowed hosts (one per line; <code>*.example.com</code>, <code>host:8080</code>). Empty: no network. The server’s gateway must allow a host too.
          <textarea id="settings-network" rows={3} value={network} onChange={(e) => setNetwork(e.target.value)} />
        </label>
      </fieldset>
      <label className="inline">
        <input type="checkbox" checked={allTools} onChange={(e) => setAllTools(e.target.checked)} /> Allow every installed tool
      </label>
      {!allTools ? (
        <label>
          Allowed tools (space separated; others exit 126 “not allowed”)
          <textarea rows={4} value={tools} onChange={(e) => setTools(e.target.value)} />
        </label>
      ) : null}
      <fieldset>
        <legend>Limits</legend>
        {EDITABLE_LIMITS.map(({ name, label, hint }) => (
          <label key={name} className="limit">
            {label} <span className="hint">({hint})</span>
            <input value={limits[name] ?? ''} onChange={(e) => setLimits({ ...limits, [name]: e.target.value })} spellCheck={false} />
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Packages</legend>
        <p className="hint">Empty: packages are off. Their hosts are allowed while packages are on; the server’s gateway must allow them too.</p>
        <label>
          Package registry for <code>pkg install</code> (URL of its index.json)
          <input id="settings-package-registry" value={registry} onChange={(e) => setRegistry(e.target.value)} spellCheck={false} placeholder="https://packages.example.com/index.json" />
        </label>
        {/* The server serves a sample registry (docs/packages.md); its gateway must allow this server's host. */}
        <button type="button" className="link" onClick={() => setRegistry(new URL('packages/index.json', document.baseURI).href)}>
          Use this server’s registry (lua, sqlite3, lz4)
        </button>
        <label>
          Python package index for <code>pip install</code> (a simple index)
          <input id="settings-python-index" value={pythonIndex} onChange={(e) => setPythonIndex(e.target.value)} spellCheck={false} placeholder="https://pypi.example.com/simple/" />
        </label>
      </fieldset>
      {error ? <p role="alert" className="panel-error">{error}</p> : null}
      <div className="panel-actions">
        <button
          onClick={() => {
            const next = draft();
            if (next !== undefined) onApply(next);
          }}
        >
          Apply (restarts the sandbox, keeps files)
        </button>
      </div>
    </>
  );
}
