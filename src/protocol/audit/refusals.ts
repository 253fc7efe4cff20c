// The kernel's tally of its own refusals, as it reports them to the host (a `refusals`
// worker event). The kernel counts repeats instead of reporting each one, so a loop of a
// million refused writes is one entry with count 1000000. The host checks every entry
// before believing it and records the events as `sandbox-reported`.

/** Entries one report may carry: the host ignores (and counts as dropped) any beyond. */
export const REFUSAL_REPORT_MAX = 1000;

export type RefusalReport =
  | { kind: 'tool'; tool: string; count: number }
  | { kind: 'write'; errno: 'EROFS' | 'ENOSPC'; path: string; limit: 'fsBytes' | 'fileCount' | null; count: number };
