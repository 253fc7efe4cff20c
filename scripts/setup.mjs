// Installs what building and testing need on a Debian 12 machine: Debian packages via
// apt-get (only the missing ones; we run as root in CI) and the npm packages.
// The Rust crates come from Debian's librust-*-dev packages: the ones Cargo.lock names are
// derived here, so adding a dependency needs no change to this file.

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The sources of the sample package registry (scripts/build-packages.mjs, public/packages/):
 * Debian's librust-lua52-sys-dev ships Lua 5.2.4's C sources.
 */
export const PACKAGE_SOURCE_PACKAGES = ['librust-lua52-sys-dev'];
/**
 * The npm tarballs whose vendored C sources the sample registry builds (`npm pack`, never
 * installed: their install scripts are not run): SQLite's amalgamation and shell, LZ4.
 */
export const NPM_SOURCES = [
  { spec: 'sqlite3@6.0.1', integrity: 'sha512-X0czUUMG2tmSqJpEQa3tCuZSHKIx8PwM53vLZzKp/o6Rpy25fiVfjdbnZ988M8+O3ZWR1ih0K255VumCb3MAnQ==' },
  { spec: 'lz4@0.6.5', integrity: 'sha512-KSZcJU49QZOlJSItaeIU3p8WoAvkTmD9fJqeahQXNu1iQ/kR0/mQLdbrK8JY9MY8f6AhJoMrihp1nu1xDbscSQ==' },
];
/**
 * Debian packages for building the wasm: Rust for our own tools; clang with wasi-libc for
 * the foreign WASI test programs (tests/wasi/src, built like a program made elsewhere).
 */
export const BUILD_PACKAGES = ['rustc', 'cargo', 'libstd-rust-dev-wasm32', 'lld-14', 'binaryen', 'git', 'clang-14', 'wasi-libc', 'libclang-rt-14-dev-wasm32', ...PACKAGE_SOURCE_PACKAGES];
/**
 * The reference tools of the compat suites: only `npm run compat:record` runs them (the
 * suite compares with recordings); their versions are listed in tests/compat/recorded-with.yaml.
 * python3 is Debian's metapackage; python3.11 is the interpreter it depends on.
 */
export const REFERENCE_PACKAGES = [
  'bash', 'coreutils', 'grep', 'sed', 'gawk', 'findutils', 'diffutils', 'jq', 'tar', 'gzip', 'zip', 'unzip',
  'patch', 'xxd', 'bsdextrautils', 'binutils', 'tree', 'ripgrep', 'bc', 'file', 'util-linux', 'python3', 'python3.11',
];
export const BROWSER_PACKAGES = ['chromium'];
/**
 * The OS layer of the Node sandbox child (src/host/node/os-sandbox.ts): bubblewrap gives it
 * its own network, mount, PID and IPC namespaces; util-linux's unshare is the fallback.
 * redis-server: the gate queue's tests (server/queue/) start their own Redis on a loopback
 * port, in the unit stage; the server and workers use it only when a queue URL is set.
 */
export const RUNTIME_PACKAGES = ['bubblewrap', 'util-linux', 'redis-server'];
/**
 * The qemu gate backend: QEMU (microvm), and what builds its guest image
 * (server/backends/qemu/build-image.ts): mmdebstrap installs the guest's Debian packages —
 * its kernel (linux-image-cloud-amd64) among them — into a folder, mkfs.ext4 -d and cpio
 * make the root image and the initramfs.
 */
export const VM_PACKAGES = ['qemu-system-x86', 'mmdebstrap', 'e2fsprogs', 'cpio'];

function installed(pkg) {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.includes('install ok installed');
}

const REGISTRY = '/usr/share/cargo/registry';

/**
 * The crates in Debian's registry as "name-version", read from their Cargo.toml: the
 * directory name is not always the crate's (md-5 0.10.1 lives in md-0.10.1).
 */
function registryCrates() {
  const crates = new Set();
  if (!existsSync(REGISTRY)) return crates;
  for (const entry of readdirSync(REGISTRY)) {
    const manifest = join(REGISTRY, entry, 'Cargo.toml');
    if (!existsSync(manifest)) continue;
    const section = /\[package\]([\s\S]*?)(?:\n\[|$)/.exec(readFileSync(manifest, 'utf8'))?.[1] ?? '';
    const name = /^name = "([^"]+)"/m.exec(section)?.[1];
    const version = /^version = "([^"]+)"/m.exec(section)?.[1];
    if (name && version) crates.add(`${name}-${version}`);
  }
  return crates;
}

/** Debian packages providing the registry crates Cargo.lock uses. */
function cratePackages(root) {
  const lock = readFileSync(join(root, 'crates/Cargo.lock'), 'utf8');
  const present = registryCrates();
  const packages = new Set();
  for (const block of lock.split('[[package]]')) {
    const name = /name = "([^"]+)"/.exec(block)?.[1];
    const version = /version = "([^"]+)"/.exec(block)?.[1];
    if (!name || !version || !block.includes('source = ')) continue;
    if (!present.has(`${name}-${version}`)) packages.add(`librust-${name.replace(/_/g, '-')}-dev`);
  }
  return [...packages];
}

export function ensureDebianPackages(root, groups) {
  const wanted = [...new Set(groups.flat())];
  const missing = wanted.filter((pkg) => !installed(pkg));
  const crates = groups.includes(BUILD_PACKAGES) ? cratePackages(root) : [];
  const toInstall = [...missing, ...crates];
  if (toInstall.length === 0) return;
  console.log(`setup: installing Debian packages: ${toInstall.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...toInstall], { stdio: 'inherit', env });
}

/**
 * Fetches NPM_SOURCES into `dir` with `npm pack` where missing, checks each tarball's
 * integrity, and returns their paths by spec.
 */
export function ensureNpmSources(dir) {
  mkdirSync(dir, { recursive: true });
  const paths = {};
  for (const { spec, integrity } of NPM_SOURCES) {
    const path = join(dir, `${spec.replace('@', '-')}.tgz`);
    if (!existsSync(path)) {
      console.log(`setup: fetching the sources in ${spec} (npm pack)`);
      execFileSync('npm', ['pack', spec, '--pack-destination', dir, '--silent'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    }
    const [algorithm, expected] = integrity.split('-');
    const actual = createHash(algorithm).update(readFileSync(path)).digest('base64');
    if (actual !== expected) {
      unlinkSync(path);
      throw new Error(`setup: ${path} does not match ${spec}'s integrity ${integrity} (got ${algorithm}-${actual}); removed, run again`);
    }
    paths[spec] = path;
  }
  return paths;
}

export function ensureNpmPackages(root) {
  const modules = join(root, 'node_modules');
  const lock = join(root, 'package-lock.json');
  const marker = join(modules, '.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.log('setup: installing npm packages (npm ci)');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}
