// `pip install NAME[==VERSION]...` (and pip3) when the package policy names a Python index
// (docs/packages.md): pure-Python wheels (`py3-none-any`) from a PEP 503 simple index at an
// allowed host, through the same policy as pkg — fetched by the host's network path, at
// most maxPackageBytes, their sha256 (the index link's #sha256=) checked before anything
// is written — unpacked into the workspace's Python path (PYTHON_USER_SITE, which python3
// puts on sys.path). Dependencies are not resolved: pip says which ones the wheel names.

import { unzipSync } from 'fflate';
import type { PackagePolicy } from '../../protocol/limits.js';
import type { Process } from '../proc/process.js';
import type { ExternalProgram } from '../sys/external-program.js';
import { AT_FDCWD, type Syscalls } from '../sys/syscalls.js';
import { HOME, PYTHON_USER_SITE } from '../vfs/boot.js';
import { Errno, KernelError } from '../errno.js';
import { PackageError, fetchBytes, sha256Hex, write } from './fetch.js';
import { compareVersions } from './registry.js';

const USAGE = 'usage: pip install NAME[==VERSION]...\n';
/** Unpacked bytes a wheel may declare, per byte of the policy's maxPackageBytes (zip bombs). */
const UNPACKED_PER_PACKED = 8;

interface Wheel {
  file: string;
  version: string;
  url: string;
  sha256: string;
}

/** PEP 503's normalized project name. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** The pure-Python wheels a simple index page links to. */
function wheelsOf(html: string, page: URL, project: string): Wheel[] {
  const wheels: Wheel[] = [];
  for (const match of html.matchAll(/<a\s[^>]*href="([^"]+)"[^>]*>([^<]*)<\/a>/gi)) {
    const href = (match[1] as string).replace(/&amp;/g, '&');
    const file = (match[2] as string).trim();
    const parts = /^([A-Za-z0-9_.]+)-([^-]+)-(?:\d[^-]*-)?(py3|py2\.py3)-none-any\.whl$/.exec(file);
    if (parts === null || normalize(parts[1] as string) !== project) continue;
    const url = new URL(href, page);
    const sha256 = /^#sha256=([0-9a-f]{64})$/.exec(url.hash)?.[1];
    if (sha256 === undefined) continue;
    url.hash = '';
    wheels.push({ file, version: parts[2] as string, url: url.href, sha256 });
  }
  return wheels;
}

/** Makes every missing directory of `path`, which is under the home directory. */
function makeDirs(sys: Syscalls, path: string): void {
  let current = HOME;
  for (const part of path.slice(HOME.length).split('/').filter((p) => p !== '')) {
    current += `/${part}`;
    try {
      sys.mkdirat(AT_FDCWD, current, 0o755);
    } catch (error) {
      if (!(error instanceof KernelError) || error.errno !== Errno.EXIST) throw error;
    }
  }
}

async function writeFile(sys: Syscalls, path: string, bytes: Uint8Array): Promise<void> {
  const fd = sys.openat(AT_FDCWD, path, { write: true, create: true, truncate: true }, 0o644);
  try {
    await sys.complete(sys.writeAll(fd, bytes));
  } finally {
    sys.close(fd);
  }
}

async function install(sys: Syscalls, policy: PackagePolicy, index: string, spec: string): Promise<string> {
  const [rawName, wanted] = spec.split('==') as [string, string | undefined];
  if (!/^[A-Za-z0-9]([A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$/.test(rawName)) throw new PackageError(`invalid requirement: '${spec}' (pip here takes NAME or NAME==VERSION)`);
  const project = normalize(rawName);
  const page = new URL(`${project}/`, index.endsWith('/') ? index : `${index}/`);
  const html = new TextDecoder().decode(await fetchBytes(sys, policy, page.href, policy.maxIndexBytes, rawName));
  const wheels = wheelsOf(html, page, project).filter((w) => wanted === undefined || w.version === wanted);
  const wheel = wheels.sort((a, b) => compareVersions(b.version, a.version))[0];
  if (wheel === undefined) throw new PackageError(`${spec}: no pure-Python wheel (py3-none-any, with a sha256) on the index`);
  const bytes = await fetchBytes(sys, policy, wheel.url, policy.maxPackageBytes, wheel.file);
  const digest = await sha256Hex(bytes);
  if (digest !== wheel.sha256) throw new PackageError(`${wheel.file}: sha256 mismatch (index ${wheel.sha256}, downloaded ${digest}); nothing installed`);
  let declared = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        declared += file.originalSize;
        if (declared > policy.maxPackageBytes * UNPACKED_PER_PACKED) throw new PackageError(`${wheel.file}: unpacks to more than ${policy.maxPackageBytes * UNPACKED_PER_PACKED} bytes; nothing installed`);
        return !file.name.endsWith('/');
      },
    });
  } catch (error) {
    if (error instanceof PackageError) throw error;
    throw new PackageError(`${wheel.file}: not a wheel (zip): ${error instanceof Error ? error.message : String(error)}; nothing installed`);
  }
  const names = Object.keys(files);
  for (const name of names) {
    if (name.startsWith('/') || name.includes('\0') || name.split('/').some((part) => part === '..' || part === '.' || part === '')) {
      throw new PackageError(`${wheel.file}: holds an unsafe path '${name}'; nothing installed`);
    }
  }
  const metadata = names.find((name) => /^[^/]+\.dist-info\/METADATA$/.test(name));
  if (metadata === undefined) throw new PackageError(`${wheel.file}: no .dist-info/METADATA, not a wheel; nothing installed`);
  for (const name of names.sort()) {
    const path = `${PYTHON_USER_SITE}/${name}`;
    makeDirs(sys, path.slice(0, path.lastIndexOf('/')));
    await writeFile(sys, path, files[name] as Uint8Array);
  }
  const requires = new TextDecoder()
    .decode(files[metadata])
    .split('\n')
    .filter((line) => line.startsWith('Requires-Dist:') && !line.includes('extra =='))
    .map((line) => line.slice('Requires-Dist:'.length).trim());
  const note = requires.length === 0 ? '' : ` (not installed, its dependencies: ${requires.join(', ')})`;
  return `Successfully installed ${rawName}-${wheel.version}${note}\n`;
}

/** `pip`/`pip3` of a kernel whose package policy names a Python index. */
export function pipProgram(policy: PackagePolicy, index: string): ExternalProgram {
  return {
    name: 'pip',
    async run(process: Process, sys: Syscalls): Promise<number> {
      const argv0 = (process.argv[0] ?? 'pip').split('/').pop() ?? 'pip';
      const [command, ...specs] = process.argv.slice(1);
      if (command !== 'install' || specs.length === 0 || specs.some((s) => s.startsWith('-'))) {
        await write(sys, command === '--help' || command === '-h' ? 1 : 2, USAGE);
        return command === '--help' || command === '-h' ? 0 : 2;
      }
      let status = 0;
      for (const spec of specs) {
        try {
          await write(sys, 1, await install(sys, policy, index, spec));
        } catch (error) {
          if (!(error instanceof PackageError) && !(error instanceof KernelError)) throw error;
          await write(sys, 2, `${argv0}: ${error.message}\n`);
          status = 1;
        }
      }
      return status;
    },
  };
}
