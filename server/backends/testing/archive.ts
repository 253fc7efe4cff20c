// For tests: a guest's output archive written as the agent writes it (one tar at the start
// of the output disk, zeros after it), with any entries a hostile guest could put there.

import { closeSync, openSync, writeSync } from 'node:fs';
import { pack, type Header } from 'tar-stream';

export interface ArchiveEntry {
  header: Partial<Header> & Pick<Header, 'name'>;
  data?: string | Uint8Array;
}

/** The tar of `entries`, in order. */
export async function tarOf(entries: ArchiveEntry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    archive.on('data', (chunk: unknown) => void chunks.push(chunk as Buffer));
    archive.on('end', resolve);
    archive.on('error', reject);
  });
  for (const entry of entries) {
    const data = entry.data === undefined ? undefined : typeof entry.data === 'string' ? Buffer.from(entry.data) : Buffer.from(entry.data);
    if (data === undefined) archive.entry(entry.header);
    else archive.entry({ ...entry.header, size: data.length }, data);
  }
  archive.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** The agent's own result entries: each phase's exit and duration, its logs, `end`. */
export function resultEntries(phases: Array<{ exitCode: number; stdout?: string }>, extra: string[] = []): ArchiveEntry[] {
  const meta = [...phases.map((phase, index) => `phase ${index + 1} ${phase.exitCode} 7`), ...extra, 'end', ''].join('\n');
  return [
    { header: { name: '.airlock-result/meta', type: 'file' }, data: meta },
    ...phases.map((phase, index) => ({ header: { name: `.airlock-result/logs/${index + 1}.out`, type: 'file' as const }, data: phase.stdout ?? '' })),
  ];
}

/** Writes `archive` at the start of an (already sized) output disk, as the guest does. */
export function writeOntoDisk(disk: string, archive: Buffer): void {
  const fd = openSync(disk, 'r+');
  try {
    writeSync(fd, archive, 0, archive.length, 0);
  } finally {
    closeSync(fd);
  }
}
