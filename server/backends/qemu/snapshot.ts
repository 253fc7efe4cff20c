// Warm start: a snapshot of a booted, idle guest (the agent waiting for `go`), saved as a
// QEMU migration stream beside the image and restored with -incoming instead of booting.
// The run's own disks are attached at restore: the guest has not read them yet (the agent
// flushes their buffers before mounting), and their capacities are fixed (qemu-client.ts),
// so the device state the snapshot holds is true of them too. One snapshot per shape
// (accelerator, memory; network `none` only: a NIC's guestfwd names a per-run port).

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { qemuArgs, type VmShape } from './command-line.js';
import type { ImagePaths } from './image.js';
import { QmpClient } from './qmp.js';

export function snapshotPath(image: ImagePaths, shape: VmShape): string {
  return join(image.dir, `warm-${shape.accel}-${shape.memoryMiB}m.vmstate`);
}

/** Boots an idle guest, saves it to snapshotPath(), and returns the path (or the existing one). */
export async function ensureSnapshot(binary: string, image: ImagePaths, shape: VmShape, disks: { inputBytes: number; outputBytes: number }, bootTimeoutMs: number): Promise<string> {
  const target = snapshotPath(image, shape);
  if (existsSync(target)) return target;
  const scratch = mkdtempSync(join(tmpdir(), 'airlock-snapshot-'));
  const placeholders = { input: join(scratch, 'input.img'), output: join(scratch, 'output.img') };
  writeFileSync(placeholders.input, '');
  truncateSync(placeholders.input, disks.inputBytes);
  writeFileSync(placeholders.output, '');
  truncateSync(placeholders.output, disks.outputBytes);
  const qmpSocket = join(scratch, 'qmp.sock');
  const partial = `${target}.partial-${process.pid}`;
  const child = spawn(binary, qemuArgs(image, { ...shape, proxyPort: null }, placeholders, { qmpSocket }), { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  let qmp: QmpClient | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error(`the snapshot guest did not boot within ${bootTimeoutMs / 1000} s`)), bootTimeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.includes('AIRLOCK ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('close', () => reject(new Error('the snapshot guest exited before it was ready')));
    });
    qmp = await QmpClient.connect(qmpSocket);
    await qmp.execute('stop');
    await qmp.execute('migrate', { uri: `exec:cat > ${partial}` });
    for (;;) {
      const status = ((await qmp.execute('query-migrate')) as { status?: string }).status;
      if (status === 'completed') break;
      if (status === 'failed' || status === 'cancelled') throw new Error(`saving the snapshot ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await qmp.execute('quit').catch(() => undefined);
    renameSync(partial, target);
    return target;
  } finally {
    qmp?.close();
    child.kill('SIGKILL');
    await exited;
    rmSync(partial, { force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}
