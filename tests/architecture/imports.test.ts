// The shape of the tree as its imports show it (docs/architecture.md §6): no import cycles,
// the kernel's layers importing only downwards, and the trust boundary — nothing on the
// sandbox side imports the host, the UI, the CLI or the server.

import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from '../../scripts/import-graph.mjs';

const graph = importGraph(['src', 'workers', 'server', 'tests', 'bench', 'e2e', 'scripts']);

/**
 * The kernel's layers, lowest first (docs/architecture.md §2): a file may import files of
 * its own folder and of lower layers only. Files directly in src/kernel/ are the top (the
 * kernel and its host API), except errno.ts, the bottom.
 */
const KERNEL_LAYERS: string[][] = [
  ['src/kernel/errno.ts'],
  ['src/kernel/vfs/'],
  ['src/kernel/fd/'],
  ['src/kernel/proc/'],
  ['src/kernel/net/', 'src/kernel/session/'],
  ['src/kernel/sys/'],
  ['src/kernel/abi/'],
  ['src/kernel/python/', 'src/kernel/extensions/', 'src/kernel/programs/', 'src/kernel/packages/'],
  ['src/kernel/'],
];

/** The layer and the unit (folder, or the file itself for errno.ts) a kernel file is in. */
function placeOf(file: string): { layer: number; unit: string } | undefined {
  for (let layer = 0; layer < KERNEL_LAYERS.length; layer++) {
    for (const prefix of KERNEL_LAYERS[layer] as string[]) {
      const matches = prefix.endsWith('/') ? file.startsWith(prefix) && (prefix !== 'src/kernel/' || !file.slice(prefix.length).includes('/')) : file === prefix;
      if (matches) return { layer, unit: prefix };
    }
  }
  return undefined;
}

describe('imports', () => {
  it('have no cycles anywhere in the TypeScript tree', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('go only downwards through the kernel layers', () => {
    const upwards: string[] = [];
    for (const [file, targets] of graph) {
      const from = placeOf(file);
      if (from === undefined || file.endsWith('.test.ts')) continue;
      for (const target of targets) {
        const to = placeOf(target);
        if (to === undefined) continue;
        const sideways = to.layer === from.layer && to.unit !== from.unit;
        if (to.layer > from.layer || sideways) upwards.push(`${file} -> ${target}`);
      }
    }
    expect(upwards).toEqual([]);
  });

  it('never cross from the sandbox side to the host, the UI, the CLI or the server', () => {
    const trusted = ['src/host/', 'src/ui/', 'src/cli/', 'server/'];
    const crossings: string[] = [];
    for (const [file, targets] of graph) {
      if (!file.startsWith('src/kernel/') && !file.startsWith('workers/')) continue;
      for (const target of targets) if (trusted.some((prefix) => target.startsWith(prefix))) crossings.push(`${file} -> ${target}`);
    }
    expect(crossings).toEqual([]);
  });
});
