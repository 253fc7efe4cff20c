// The playground's settings (network allowlist, tool allowlist, limits, package sources), how they become
// host API options, and how they are described to the user.

import type { BrowserSandboxOptions, SandboxLimits } from '../../host/browser/index.js';
import { DEFAULT_LIMITS } from '../../protocol/limits.js';
import { formatBytes, formatDuration, parseBytes, parseDuration } from '../format.js';
import { playgroundReason } from '../panels/network/reason.js';

export interface PlaygroundSettings {
  /** Hosts the sandbox may reach (empty: no network). */
  networkAllow: string[];
  /** Tools that may run; null: all installed tools. */
  tools: string[] | null;
  /** Limits changed from the defaults. */
  limits: Partial<Pick<SandboxLimits, 'timeoutMs' | 'fsBytes' | 'fileCount' | 'stdoutBytes' | 'memoryBytes'>>;
  /** The registry `pkg` installs from (docs/packages.md); null: with pythonIndex, packages are off. */
  packageRegistry: string | null;
  /** The simple index `pip install` reads pure-Python wheels from; null: no pip. */
  pythonIndex: string | null;
}

export const DEFAULT_SETTINGS: PlaygroundSettings = { networkAllow: [], tools: null, limits: {}, packageRegistry: null, pythonIndex: null };

/** Why `text` cannot be a package source URL, or undefined when it can. */
export function packageSourceProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `“${text}” is not a URL (e.g. https://packages.example.com/index.json)`;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : `“${text}” is not an http or https URL`;
}

/** Whether these settings turn packages on (a registry or a Python index is given). */
export function packagesEnabled(settings: PlaygroundSettings): boolean {
  return settings.packageRegistry !== null || settings.pythonIndex !== null;
}

/** The limits the settings panel edits, with their units for display. */
export const EDITABLE_LIMITS = [
  { name: 'timeoutMs', label: 'Run time limit', kind: 'duration', hint: 'e.g. 30 s, 2 min' },
  { name: 'fsBytes', label: 'Disk space', kind: 'bytes', hint: 'e.g. 256 MiB, 1 GiB' },
  { name: 'fileCount', label: 'Number of files', kind: 'count', hint: 'a number, or unlimited' },
  { name: 'stdoutBytes', label: 'Output kept per command', kind: 'bytes', hint: 'e.g. 1 MiB' },
  { name: 'memoryBytes', label: 'Memory per process', kind: 'bytes', hint: 'e.g. 1 GiB' },
] as const;

export type LimitKind = (typeof EDITABLE_LIMITS)[number]['kind'];

/** A limit's value in the words the settings show ("256 MiB", "30 s", "unlimited"). */
export function formatLimit(kind: LimitKind, value: number): string {
  if (!Number.isFinite(value)) return 'unlimited';
  if (kind === 'bytes') return formatBytes(value);
  if (kind === 'duration') return formatDuration(value);
  return value.toLocaleString('en').replace(/,/g, '');
}

/** Reads what a person typed for a limit; undefined when it is not a positive value. */
export function parseLimit(kind: LimitKind, text: string): number | undefined {
  const value = kind === 'bytes' ? parseBytes(text) : kind === 'duration' ? parseDuration(text) : text.trim().toLowerCase() === 'unlimited' ? Infinity : /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
  return value !== undefined && value > 0 ? value : undefined;
}

/** How the page names a limit of the host API in messages ("the disk limit of 256 MiB"). */
export function describeLimit(name: string, value: number): string {
  const known = EDITABLE_LIMITS.find((l) => l.name === name);
  const words: Record<string, string> = { timeoutMs: 'run time limit', fsBytes: 'disk limit', fileCount: 'file-count limit', stdoutBytes: 'output limit', stderrBytes: 'error-output limit', memoryBytes: 'memory limit', commandBytes: 'command length limit' };
  const shown = known !== undefined ? formatLimit(known.kind, value) : /Bytes$/.test(name) ? formatBytes(value) : /Ms$/.test(name) ? formatDuration(value) : String(value);
  return `${words[name] ?? `${name} limit`} of ${shown}`;
}

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
  const source = (v: unknown): string | null => (typeof v === 'string' && packageSourceProblem(v) === undefined ? v : null);
  return { networkAllow: strings(record.networkAllow) ?? [], tools: record.tools === null ? null : strings(record.tools) ?? null, limits, packageRegistry: source(record.packageRegistry), pythonIndex: source(record.pythonIndex) };
}

export function sandboxOptions(settings: PlaygroundSettings): BrowserSandboxOptions {
  // Refusals name the settings a person can change, not the policy's option names.
  const options: BrowserSandboxOptions = { limits: settings.limits, network: { allowedHosts: settings.networkAllow, describeRefusal: playgroundReason } };
  if (settings.tools !== null) options.allowedTools = settings.tools;
  if (packagesEnabled(settings)) {
    // The package policy's hosts join the network policy while packages are on (pkg's and
    // pip's downloads take the sandbox's network path): exactly the sources' hosts.
    const sources = [settings.packageRegistry, settings.pythonIndex].filter((url): url is string => url !== null);
    options.packages = { enabled: true, registry: settings.packageRegistry, pythonIndex: settings.pythonIndex, allowedHosts: [...new Set(sources.map((url) => new URL(url).host))] };
  }
  return options;
}

/** What the sandbox may do, in the words shown in the status bar and the settings panel. */
export function describeSettings(settings: PlaygroundSettings): { network: string; tools: string; limits: string; packages: string } {
  const limits = { ...DEFAULT_LIMITS, ...settings.limits };
  return {
    network: settings.networkAllow.length === 0 ? 'no network' : `network: ${settings.networkAllow.join(', ')}`,
    tools: settings.tools === null ? 'all tools' : `${settings.tools.length} tools allowed`,
    limits: `timeout ${formatDuration(limits.timeoutMs)} · disk ${formatBytes(limits.fsBytes)} · files ${Number.isFinite(limits.fileCount) ? limits.fileCount : 'unlimited'}`,
    packages: packagesEnabled(settings) ? `packages from ${[settings.packageRegistry, settings.pythonIndex].filter((url) => url !== null).map((url) => new URL(url).host).join(', ')}` : 'no packages',
  };
}
