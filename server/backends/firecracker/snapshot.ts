// Firecracker's warm start: a snapshot of a booted, idle guest (the agent waiting for
// `go`), written on a shape's first run and restored by later runs instead of booting.
// One snapshot per shape: memory, jailed or not (a jailed snapshot names its files by
// their paths inside the jail, an unjailed one by host paths) and Firecracker version (a
// snapshot loads only in the version that wrote it). Kept beside the guest image.

import { join } from 'node:path';
import type { SnapshotFiles } from './launch.js';

/** The version as a file-name word: `Firecracker v1.7.0` → `v1.7.0`. */
export function versionTag(version: string | null): string {
  const match = /v?\d+(\.\d+)*/.exec(version ?? '');
  return match === null ? 'unknown' : match[0].startsWith('v') ? match[0] : `v${match[0]}`;
}

export function snapshotFiles(imageDir: string, shape: { memoryMiB: number; jailed: boolean; version: string | null }): SnapshotFiles {
  const stem = join(imageDir, `fc-warm-${shape.jailed ? 'jailed' : 'direct'}-${shape.memoryMiB}m-${versionTag(shape.version)}`);
  return { state: `${stem}.snap`, memory: `${stem}.mem`, input: `${stem}.input.img`, output: `${stem}.output.img` };
}

/** The partial files a snapshot is written to (by the VM `id`) before it is renamed into place. */
export function partialFiles(files: SnapshotFiles, id: string): { state: string; memory: string } {
  return { state: `${files.state}.partial-${id}`, memory: `${files.memory}.partial-${id}` };
}
