// The Node platform: sandbox workers are child processes from the warm pool; tool modules
// are the ones in the wasm directory's manifest, compiled by each child itself.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ModuleSpec } from '../../protocol/messages.js';
import type { ConnectOptions, KernelConnection, Platform } from '../connection.js';
import { ChildPool } from './spare-child.js';
import { kernelBundlePath, packageRoot } from './kernel-bundle.js';
import { nodeNetwork } from '../network/node-network.js';
import { pythonSnapshotFile } from '../python/node-snapshot.js';

interface Manifest {
  modules: Array<{ name: string; file: string; commands: string[] }>;
}

export interface NodePlatformOptions {
  /** Directory with manifest.json and the .wasm files (default: the package's public/wasm). */
  wasmDir?: string;
  /** Run sandbox children without network when the OS allows it (default true). */
  isolateNetwork?: boolean;
  /**
   * Python's mode (docs/architecture.md §2): `worker` (default, mode 1) or `inline` on the
   * kernel thread, as pages without SharedArrayBuffer run it (mode 3; for tests).
   */
  pythonMode?: 'worker' | 'inline';
  /** DNS servers (`address` or `address:port`) for the sandbox's requests instead of the system's resolver. */
  dnsServers?: string[];
}

const pool = new ChildPool();

/** pythonSnapshotFile's last answer and the Python worker script it was made for. */
let snapshotMemo: { stamp: string; file: string } | undefined;

/**
 * pythonSnapshotFile(bundle), which hashes the Python worker script (~1 ms of this thread,
 * more under load, on every create and fork): its answer holds while the script is the same
 * file (path, size, mtime) and the snapshot is still there.
 */
function snapshotFor(bundle: string): string | undefined {
  const script = join(dirname(bundle), 'python-worker.mjs');
  const stat = statSync(script, { throwIfNoEntry: false });
  const stamp = stat === undefined ? undefined : `${script}:${stat.size}:${stat.mtimeMs}`;
  if (stamp !== undefined && snapshotMemo?.stamp === stamp && existsSync(snapshotMemo.file)) return snapshotMemo.file;
  const file = pythonSnapshotFile(bundle);
  snapshotMemo = stamp === undefined || file === undefined ? undefined : { stamp, file };
  return file;
}

/** Ends the warm spare processes (for programs that want to exit at once). */
export function drainWarmPool(): void {
  pool.drain();
}

export function nodePlatform(options: NodePlatformOptions = {}): Platform {
  const wasmDir = options.wasmDir ?? join(packageRoot(), 'public/wasm');
  let manifest: Manifest | undefined;
  return {
    network: nodeNetwork({ dnsServers: options.dnsServers }),
    async connect(connectOptions: ConnectOptions): Promise<KernelConnection> {
      const bundle = await kernelBundlePath();
      const pythonSnapshot = snapshotFor(bundle);
      return pool.connect({ bundle, wasmDir, messageBytes: connectOptions.messageBytes, isolateNetwork: options.isolateNetwork !== false, pythonSnapshot, pythonInline: options.pythonMode === 'inline' }, connectOptions);
    },
    async modules(): Promise<ModuleSpec[]> {
      manifest ??= JSON.parse(readFileSync(join(wasmDir, 'manifest.json'), 'utf8')) as Manifest;
      // No bytes: the child compiled these from the same directory while it was warming up.
      return manifest.modules.map((m) => ({ name: m.name, tools: m.commands }));
    },
  };
}
