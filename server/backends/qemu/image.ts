// The qemu backend's guest image: a kernel, a tiny initramfs and a read-only ext4 root,
// built from Debian packages by build-image.ts and cached outside the repository under
// $AIRLOCK_VM_CACHE (default ~/.cache/airlock/vm)/<key>. The key is the BLAKE3 of the
// recipe folder (guest/) and the builder itself, so changing either builds a new image.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { canonicalHash } from '../spec.js';
import { packageRoot } from '../../../src/host/node/kernel-bundle.js';

// From the package root, so the bundled CLI (dist/node) finds them too.
export const GUEST_DIR = join(packageRoot(), 'server/backends/qemu/guest');
const BUILDER = join(packageRoot(), 'server/backends/qemu/build-image.ts');

export interface GuestRecipe {
  suite: string;
  mirrors: string[];
  variant: string;
  kernelPackage: string;
  packages: string[];
  initramfsModules: string[];
  networkModules: string[];
  user: { name: string; uid: number; home: string };
}

export interface ImagePaths {
  key: string;
  dir: string;
  kernel: string;
  initrd: string;
  root: string;
  manifest: string;
}

export interface ImageManifest {
  key: string;
  kernelVersion: string;
  createdAt: string;
  buildSeconds: number;
  rootBytes: number;
  packages: string[];
}

export function readRecipe(): GuestRecipe {
  return JSON.parse(readFileSync(join(GUEST_DIR, 'recipe.json'), 'utf8')) as GuestRecipe;
}

/** The image key: BLAKE3 of every file of guest/ and of the builder (first 16 hex digits). */
export function imageKey(): string {
  const files: Record<string, string> = {};
  for (const name of readdirSync(GUEST_DIR).sort()) files[name] = readFileSync(join(GUEST_DIR, name), 'utf8');
  files['build-image.ts'] = readFileSync(BUILDER, 'utf8');
  return canonicalHash(files).slice(0, 16);
}

export function vmCacheDir(): string {
  return process.env.AIRLOCK_VM_CACHE ?? join(homedir(), '.cache/airlock/vm');
}

export function imagePaths(key: string = imageKey()): ImagePaths {
  const dir = join(vmCacheDir(), key);
  return { key, dir, kernel: join(dir, 'vmlinuz'), initrd: join(dir, 'initrd.cpio'), root: join(dir, 'root.img'), manifest: join(dir, 'manifest.json') };
}

/** The built image of the current recipe, or null (with why) when it is not built yet. */
export function findImage(): { paths: ImagePaths; manifest: ImageManifest } | { paths: ImagePaths; missing: string } {
  const paths = imagePaths();
  if (!existsSync(paths.manifest)) return { paths, missing: `the guest image ${paths.key} is not built (run: node --import tsx server/backends/qemu/build-image.ts)` };
  return { paths, manifest: JSON.parse(readFileSync(paths.manifest, 'utf8')) as ImageManifest };
}
