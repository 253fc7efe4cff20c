// Settings: network allowlist, tool allowlist and limits. Applying restarts the sandbox
// from its exported state with the new options; the panel says what the sandbox may do.

import { useEffect, useRef, useState } from 'react';
import { DEFAULT_LIMITS } from '../../protocol/limits.js';
import { describeSettings, EDITABLE_LIMITS, type PlaygroundSettings } from '../playground/settings.js';

interface SettingsPanelProps {
  settings: PlaygroundSettings;
  installedTools: readonly string[];
  onApply: (settings: PlaygroundSettings) => void;
  onClose: () => void;
}

const lines = (text: string): string[] => text.split(/[\s,]+/).map((s) => s.trim()).filter((s) => s.length > 0);

export function SettingsPanel({ settings, installedTools, onApply, onClose }: SettingsPanelProps) {
  const [network, setNetwork] = useState(settings.networkAllow.join('\n'));
  const [allTools, setAllTools] = useState(settings.tools === null);
  const [tools, setTools] = useState((settings.tools ?? installedTools).join(' '));
  const [limits, setLimits] = useState<Record<string, string>>(
    Object.fromEntries(EDITABLE_LIMITS.map(({ name }) => [name, String(settings.limits[name] ?? DEFAULT_LIMITS[name])])),
  );
  const [error, setError] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  // Keyboard users land in the panel they opened.
  useEffect(() => heading.current?.focus(), []);

  const draft = (): PlaygroundSettings | undefined => {
    const next: PlaygroundSettings = { networkAllow: lines(network), tools: allTools ? null : lines(tools), limits: {} };
    for (const { name, label } of EDITABLE_LIMITS) {
      const text = (limits[name] ?? '').trim();
      const value = text === 'Infinity' || text === 'unlimited' ? Infinity : Number(text);
      if (!(value > 0)) {
        setError(`${label} must be a positive number (or “unlimited”).`);
        return undefined;
      }
      if (value !== DEFAULT_LIMITS[name]) next.limits[name] = value;
    }
    setError('');
    return next;
  };
  const described = describeSettings(settings);

  return (
    <aside className="panel" aria-label="Settings">
      <h2 tabIndex={-1} ref={heading}>Settings</h2>
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
        {EDITABLE_LIMITS.map(({ name, label, unit }) => (
          <label key={name} className="limit">
            {label} ({unit})
            <input value={limits[name] ?? ''} onChange={(e) => setLimits({ ...limits, [name]: e.target.value })} inputMode="numeric" />
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
        <button onClick={onClose}>Close</button>
      </div>
    </aside>
  );
}
