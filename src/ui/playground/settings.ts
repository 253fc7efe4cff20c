// The playground's settings (network allowlist, tool allowlist, limits), how they become
// host API options, and how they are described to the user.

import type { BrowserSandboxOptions, SandboxLimits } from '../../host/browser/index.js';
import { DEFAULT_LIMITS } from '../../protocol/limits.js';

export interface PlaygroundSettings {
  /** Hosts the sandbox may reach (empty: no network). */
  networkAllow: string[];
  /** Tools that may run; null: all installed tools. */
  tools: string[] | null;
  /** Limits changed from the defaults. */
  limits: Partial<Pick<SandboxLimits, 'timeoutMs' | 'fsBytes' | 'fileCount' | 'stdoutBytes' | 'memoryBytes'>>;
}

export const DEFAULT_SETTINGS: PlaygroundSettings = { networkAllow: [], tools: null, limits: {} };

/** The limits the settings panel edits, with their units for display. */
export const EDITABLE_LIMITS = [
  { name: 'timeoutMs', label: 'Run timeout', unit: 'ms' },
  { name: 'fsBytes', label: 'Filesystem size', unit: 'bytes' },
  { name: 'fileCount', label: 'File count', unit: 'files' },
  { name: 'stdoutBytes', label: 'Output kept per run', unit: 'bytes' },
  { name: 'memoryBytes', label: 'Memory per process', unit: 'bytes' },
] as const;

/** Accepts only well-formed stored settings; anything else falls back to the defaults. */
export function parseSettings(value: unknown): PlaygroundSettings {
  if (typeof value !== 'object' || value === null) return DEFAULT_SETTINGS;
  const record = value as Record<string, unknown>;
  const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined);
  const limits: PlaygroundSettings['limits'] = {};
  const storedLimits = typeof record.limits === 'object' && record.limits !== null ? (record.limits as Record<string, unknown>) : {};
  for (const { name } of EDITABLE_LIMITS) {
    const v = storedLimits[name];
    if (typeof v === 'number' && v > 0) limits[name] = v;
  }
  return { networkAllow: strings(record.networkAllow) ?? [], tools: record.tools === null ? null : strings(record.tools) ?? null, limits };
}

export function sandboxOptions(settings: PlaygroundSettings): BrowserSandboxOptions {
  const options: BrowserSandboxOptions = { limits: settings.limits, network: { allowedHosts: settings.networkAllow } };
  if (settings.tools !== null) options.allowedTools = settings.tools;
  return options;
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'unlimited';
  if (bytes >= 1024 * 1024 * 1024) return `${+(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 * 1024) return `${+(bytes / 1024 ** 2).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

/** What the sandbox may do, in the words shown in the status bar and the settings panel. */
export function describeSettings(settings: PlaygroundSettings): { network: string; tools: string; limits: string } {
  const limits = { ...DEFAULT_LIMITS, ...settings.limits };
  return {
    network: settings.networkAllow.length === 0 ? 'no network' : `network: ${settings.networkAllow.join(', ')}`,
    tools: settings.tools === null ? 'all tools' : `${settings.tools.length} tools allowed`,
    limits: `timeout ${limits.timeoutMs / 1000} s · disk ${formatBytes(limits.fsBytes)} · files ${Number.isFinite(limits.fileCount) ? limits.fileCount : 'unlimited'}`,
  };
}
