// Numbers in the words people read: sizes in KiB/MiB/GiB, durations in s or min.

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'unlimited';
  if (bytes >= 1024 * 1024 * 1024) return `${+(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 * 1024) return `${+(bytes / 1024 ** 2).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'no limit';
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${+(ms / 1000).toFixed(1)} s`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
}

const BYTE_UNITS: Record<string, number> = {
  '': 1, b: 1, byte: 1, bytes: 1,
  k: 1024, kib: 1024, kb: 1000,
  m: 1024 ** 2, mib: 1024 ** 2, mb: 1000 ** 2,
  g: 1024 ** 3, gib: 1024 ** 3, gb: 1000 ** 3,
};

/** "256 MiB", "1.5 GB", "4096", "unlimited" → bytes; undefined when not a size. */
export function parseBytes(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'unlimited' || trimmed === 'infinity') return Infinity;
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(trimmed);
  const unit = match === null ? undefined : BYTE_UNITS[match[2] ?? ''];
  if (match === null || unit === undefined) return undefined;
  return Math.round(Number(match[1]) * unit);
}

/** "30 s", "2 min", "500 ms", "30" (seconds), "unlimited" → milliseconds; undefined otherwise. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'unlimited' || trimmed === 'infinity') return Infinity;
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds?|m|min|mins|minutes?|)$/.exec(trimmed);
  if (match === null) return undefined;
  const value = Number(match[1]);
  const unit = match[2] ?? '';
  return Math.round(unit === 'ms' ? value : unit.startsWith('m') ? value * 60_000 : value * 1000);
}
