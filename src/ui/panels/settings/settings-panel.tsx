// Settings: network allowlist, tool allowlist and limits. Applying restarts the sandbox
// from its exported state with the new options; the panel says what the sandbox may do.

import { useState } from 'react';
import { DEFAULT_LIMITS } from '../../../protocol/limits.js';
import { describeSettings, EDITABLE_LIMITS, formatLimit, parseLimit, type PlaygroundSettings } from '../../playground/settings.js';
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
  const [error, setError] = useState('');

  const draft = (): PlaygroundSettings | undefined => {
    const next: PlaygroundSettings = { networkAllow: lines(network), tools: allTools ? null : lines(tools), limits: {} };
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
        Now: {described.network}; {described.tools}; {described.limits}.
      </p>
      <label>
        Network allowlist (one host per line; <code>*.example.com</code>, <code>host:8080</code>). Empty: no network. The server’s gateway must allow a host too.
        <textarea rows={3} value={network} onChange={(e) => setNetwork(e.target.value)} />
      </label>
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
