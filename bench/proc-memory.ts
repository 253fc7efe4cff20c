// A process's memory as /proc tells it, for the benches that weigh sandboxes (density: Node
// children; browser-tab: Chromium's renderers).

import { readFileSync } from 'node:fs';

/** In KiB: Rss and Pss (smaps_rollup), RssAnon and RssFile (status). */
export interface ProcessMemory {
  rssKiB: number;
  pssKiB: number;
  /** RSS split as /proc/<pid>/status splits it: anonymous (the process's own) and file pages (shared binaries). */
  anonKiB: number;
  fileKiB: number;
}

export const NO_MEMORY: ProcessMemory = { rssKiB: 0, pssKiB: 0, anonKiB: 0, fileKiB: 0 };

/** One process's memory; zeros when it has gone. */
export function processMemory(pid: number): ProcessMemory {
  try {
    const rollupText = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (text: string, name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { rssKiB: field(rollupText, 'Rss'), pssKiB: field(rollupText, 'Pss'), anonKiB: field(status, 'RssAnon'), fileKiB: field(status, 'RssFile') };
  } catch {
    return NO_MEMORY;
  }
}

export function sumMemory(parts: ProcessMemory[]): ProcessMemory {
  return parts.reduce((sum, m) => ({ rssKiB: sum.rssKiB + m.rssKiB, pssKiB: sum.pssKiB + m.pssKiB, anonKiB: sum.anonKiB + m.anonKiB, fileKiB: sum.fileKiB + m.fileKiB }), NO_MEMORY);
}
