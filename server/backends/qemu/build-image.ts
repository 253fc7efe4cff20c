// Builds the qemu backend's guest image (image.ts) when the cache has none for the current
// recipe: mmdebstrap installs the recipe's Debian packages (and the kernel package) into a
// folder; the kernel is taken out, the virtio modules go into a busybox initramfs, the
// guest agent into /usr/lib/airlock/agent, and the folder becomes a read-only ext4 image
// (mkfs.ext4 -d: no loop device, no mount). Needs root (mmdebstrap's root mode), and
// Debian's mmdebstrap, e2fsprogs and cpio (scripts/setup.mjs installs them).
//
//   node --import tsx server/backends/qemu/build-image.ts          build if missing, print the directory
//   node --import tsx server/backends/qemu/build-image.ts --force  rebuild

import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GATE_LIMITS } from '../../../src/protocol/limits.js';
import { canonicalHash } from '../spec.js';
import { GUEST_DIR, imagePaths, readRecipe, vmCacheDir, type GuestRecipe, type ImageManifest, type ImagePaths } from './image.js';

const MiB = 1024 * 1024;

function run(program: string, args: string[], options: { cwd?: string; log?: (line: string) => void } = {}): string {
  options.log?.(`$ ${program} ${args.join(' ')}`);
  return execFileSync(program, args, { cwd: options.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * MiB });
}

function treeBytes(dir: string): number {
  return Number(run('du', ['-sb', dir]).split('\t')[0]);
}

/**
 * The Debian tree of the recipe (mmdebstrap), cached as base-<key>/rootfs beside the
 * images: it depends only on recipe.json, so changing the agent or the initramfs does not
 * download and install the packages again (that step takes minutes).
 */
function ensureBase(recipe: GuestRecipe, log: (line: string) => void): string {
  const key = canonicalHash({ recipe, stage: 'mmdebstrap-1' }).slice(0, 16);
  const base = join(vmCacheDir(), `base-${key}`);
  const rootfs = join(base, 'rootfs');
  if (existsSync(join(base, 'done'))) return rootfs;
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const { name, uid, home } = recipe.user;
  const hook = [
    `echo '${name}:x:${uid}:${uid}::${home}:/bin/sh' >> "$1/etc/passwd"`,
    `echo '${name}:x:${uid}:' >> "$1/etc/group"`,
    `echo '${name}:*:19000:0:99999:7:::' >> "$1/etc/shadow"`,
    `mkdir -p "$1${home}" && chown ${uid}:${uid} "$1${home}"`,
  ].join(' && ');
  log(`installing ${recipe.packages.length} packages and ${recipe.kernelPackage} (${recipe.suite})`);
  run('mmdebstrap', [
    '--mode=root', `--variant=${recipe.variant}`, `--include=${[recipe.kernelPackage, ...recipe.packages].join(',')}`,
    // No fsync per file (the tree is rebuilt from scratch if anything fails), no docs, and
    // no initramfs-tools run for the kernel: the builder makes its own initramfs.
    '--dpkgopt=force-unsafe-io',
    '--dpkgopt=path-exclude=/usr/share/doc/*', '--dpkgopt=path-exclude=/usr/share/man/*', '--dpkgopt=path-exclude=/usr/share/locale/*',
    '--dpkgopt=path-include=/usr/share/doc/*/copyright', '--dpkgopt=path-exclude=/etc/kernel/postinst.d/initramfs-tools',
    `--customize-hook=${hook}`,
    recipe.suite, rootfs, ...recipe.mirrors,
  ], { log });
  writeFileSync(join(base, 'done'), new Date().toISOString() + '\n');
  return rootfs;
}

/** Replaces `path` by a new file (the tree is hard links into the base: never write through one). */
function replaceFile(path: string, content: string, mode = 0o644): void {
  rmSync(path, { force: true });
  writeFileSync(path, content, { mode });
}

export async function buildImage(options: { force?: boolean; log?: (line: string) => void } = {}): Promise<ImagePaths> {
  const log = options.log ?? ((line: string) => console.log(`vm-image: ${line}`));
  const paths = imagePaths();
  if (existsSync(paths.manifest) && options.force !== true) return paths;
  if (process.getuid?.() !== 0) throw new Error('building the guest image needs root (mmdebstrap --mode=root)');
  const recipe = readRecipe();
  const started = Date.now();
  const baseRootfs = ensureBase(recipe, log);
  const tmp = `${paths.dir}.build-${process.pid}`;
  for (const entry of readdirSync(vmCacheDir())) {
    if (entry.startsWith(`${paths.key}.build-`)) rmSync(join(vmCacheDir(), entry), { recursive: true, force: true });
  }
  mkdirSync(tmp, { recursive: true });
  const rootfs = join(tmp, 'rootfs');
  run('cp', ['-al', baseRootfs, rootfs], { log });

  const kernelFile = readdirSync(join(rootfs, 'boot')).find((file) => file.startsWith('vmlinuz-'));
  if (kernelFile === undefined) throw new Error(`no kernel in ${rootfs}/boot (is ${recipe.kernelPackage} installed?)`);
  const kernelVersion = kernelFile.slice('vmlinuz-'.length);
  copyFileSync(join(rootfs, 'boot', kernelFile), join(tmp, 'vmlinuz'));

  // The initramfs: busybox, the modules, /init.
  const initramfs = join(tmp, 'initramfs');
  for (const dir of ['bin', 'modules', 'dev', 'proc', 'sys']) mkdirSync(join(initramfs, dir), { recursive: true });
  copyFileSync(join(rootfs, 'bin/busybox'), join(initramfs, 'bin/busybox'));
  chmodSync(join(initramfs, 'bin/busybox'), 0o755);
  const modulesDir = join(rootfs, 'lib/modules', kernelVersion);
  const dep = readFileSync(join(modulesDir, 'modules.dep'), 'utf8');
  for (const module of [...recipe.initramfsModules, ...recipe.networkModules]) {
    const line = dep.split('\n').find((entry) => entry.split(':')[0]?.endsWith(`/${module}.ko`));
    if (line === undefined) throw new Error(`module ${module} is not in ${kernelVersion}`);
    copyFileSync(join(modulesDir, line.split(':')[0] as string), join(initramfs, 'modules', `${module}.ko`));
  }
  const init = readFileSync(join(GUEST_DIR, 'init.sh'), 'utf8').replace('@MODULES@', recipe.initramfsModules.join(' ')).replace('@NETWORK_MODULES@', recipe.networkModules.join(' '));
  writeFileSync(join(initramfs, 'init'), init, { mode: 0o755 });
  run('mknod', [join(initramfs, 'dev/console'), 'c', '5', '1']);
  const files = run('find', ['.'], { cwd: initramfs });
  const cpio = execFileSync('cpio', ['-o', '-H', 'newc', '--quiet', '-R', '0:0'], { cwd: initramfs, input: files, maxBuffer: 256 * MiB });
  writeFileSync(join(tmp, 'initrd.cpio'), cpio);

  // The root: the agent in, the kernel and modules out (they live outside the image).
  const agent = readFileSync(join(GUEST_DIR, 'agent.sh'), 'utf8').replace('@LOG_BYTES@', String(GATE_LIMITS.phaseLogBytes));
  mkdirSync(join(rootfs, 'usr/lib/airlock'), { recursive: true });
  replaceFile(join(rootfs, 'usr/lib/airlock/agent'), agent, 0o755);
  mkdirSync(join(rootfs, '.airlock-in'), { recursive: true });
  replaceFile(join(rootfs, 'etc/hosts'), '127.0.0.1 localhost gate\n::1 localhost\n');
  // busybox's applets the agent uses (mount, poweroff, ip, blockdev) that Debian's
  // essential set lacks, last on the agent's PATH.
  mkdirSync(join(rootfs, 'opt/busybox'), { recursive: true });
  run('chroot', [rootfs, '/bin/busybox', '--install', '-s', '/opt/busybox'], { log });
  for (const entry of readdirSync(join(rootfs, 'boot'))) rmSync(join(rootfs, 'boot', entry), { recursive: true });
  rmSync(join(rootfs, 'lib/modules'), { recursive: true, force: true });
  rmSync(join(rootfs, 'var/cache/apt'), { recursive: true, force: true });
  rmSync(join(rootfs, 'var/lib/apt/lists'), { recursive: true, force: true });
  const rootBytes = treeBytes(rootfs);
  const size = Math.ceil((rootBytes * 1.15 + 64 * MiB) / MiB);
  log(`root tree ${Math.round(rootBytes / MiB)} MiB → ext4 image of ${size} MiB`);
  run('mkfs.ext4', ['-q', '-F', '-L', 'airlock-root', '-O', '^has_journal', '-d', rootfs, join(tmp, 'root.img'), `${size}M`], { log });
  rmSync(rootfs, { recursive: true, force: true });
  rmSync(initramfs, { recursive: true, force: true });

  const manifest: ImageManifest = {
    key: paths.key, kernelVersion, createdAt: new Date().toISOString(), buildSeconds: Math.round((Date.now() - started) / 1000),
    rootBytes: statSync(join(tmp, 'root.img')).size, packages: [recipe.kernelPackage, ...recipe.packages],
  };
  writeFileSync(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  rmSync(paths.dir, { recursive: true, force: true });
  renameSync(tmp, paths.dir);
  // Older images (other keys) are not used any more.
  for (const entry of readdirSync(vmCacheDir())) {
    if (/^[0-9a-f]{16}(\.build-\d+)?$/.test(entry) && entry !== paths.key) rmSync(join(vmCacheDir(), entry), { recursive: true, force: true });
  }
  log(`built ${paths.dir} in ${manifest.buildSeconds} s`);
  return paths;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const paths = await buildImage({ force: process.argv.includes('--force') });
  console.log(paths.dir);
}
