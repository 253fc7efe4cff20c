// `pkg`: installs WASI programs from the registry the package policy names (docs/packages.md).
//
//   pkg install NAME[@VERSION]...   pkg remove NAME...   pkg list   pkg info NAME   pkg search [WORD]
//
// Disabled unless the policy enables it. The index and each module are fetched through the
// host's network path (the gateway decides every request) from the policy's allowedHosts
// only, without following redirects; a module is checked against the index (size first,
// then its sha256 and that it is a wasm module) before anything is written. Installed
// commands run as foreign WASI programs, under the same isolation and allowlist as any tool.

import { KernelError } from '../errno.js';
import type { Process } from '../proc/process.js';
import type { ExternalProgram } from '../sys/external-program.js';
import type { Syscalls } from '../sys/syscalls.js';
import type { PackagePolicy } from '../../protocol/limits.js';
import type { PackageReport } from '../../protocol/audit/package-report.js';
import { PackageError, fetchBytes, sha256Hex, write } from './fetch.js';
import { findEntry, nameProblem, parseIndex, parseSpec, type PackageEntry, type RegistryIndex } from './registry.js';
import type { PackageStore } from './store.js';

const USAGE = `usage: pkg install NAME[@VERSION]...
       pkg remove NAME...
       pkg list
       pkg info NAME
       pkg search [WORD]
`;
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

/** What pkg needs of the kernel. */
export interface PackageHost {
  readonly policy: PackagePolicy;
  readonly store: PackageStore;
  /** Whether `name` is one of the sandbox's own commands (a package may not shadow it). */
  isTool(name: string): boolean;
  /** Tells the host's audit what pkg did (installed, removed, refused). */
  report?(report: PackageReport): void;
}

async function loadIndex(sys: Syscalls, policy: PackagePolicy): Promise<RegistryIndex> {
  if (policy.registry === null) throw new PackageError('no registry is configured (the package policy has no registry URL)');
  const bytes = await fetchBytes(sys, policy, policy.registry, policy.maxIndexBytes, 'registry');
  try {
    return parseIndex(new TextDecoder().decode(bytes), policy.registry);
  } catch (error) {
    throw new PackageError(`registry: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function checkName(name: string): void {
  const problem = nameProblem(name);
  if (problem !== undefined) throw new PackageError(`invalid package name: ${problem}`);
}

async function install(sys: Syscalls, host: PackageHost, index: RegistryIndex, spec: string): Promise<string> {
  const { policy, store } = host;
  const { name, version } = parseSpec(spec);
  checkName(name);
  const entry = findEntry(index, name, version);
  if (entry === undefined) throw new PackageError(`${spec}: no such package${version === undefined ? '' : ' version'} in the registry`);
  if (entry.size > policy.maxPackageBytes) {
    throw new PackageError(`${name}: ${entry.size} bytes is over the package policy's maxPackageBytes (${policy.maxPackageBytes})`);
  }
  const installed = store.list();
  if (!installed.some((p) => p.name === name) && installed.length >= policy.maxInstalledPackages) {
    throw new PackageError(`${name}: ${installed.length} packages are installed, the package policy's maxInstalledPackages (${policy.maxInstalledPackages})`);
  }
  for (const command of entry.commands) {
    if (host.isTool(command)) throw new PackageError(`${name}: its command ${command} is one of the sandbox's own commands`);
    const owner = store.owner(command);
    if (owner !== undefined && owner.name !== name) throw new PackageError(`${name}: its command ${command} is already provided by ${owner.name}`);
  }
  const bytes = await fetchBytes(sys, policy, entry.url, Math.min(entry.size, policy.maxPackageBytes), name);
  if (bytes.length !== entry.size) throw new PackageError(`${name}: downloaded ${bytes.length} bytes, the registry says ${entry.size}; nothing installed`);
  const digest = await sha256Hex(bytes);
  if (digest !== entry.sha256) throw new PackageError(`${name}: sha256 mismatch (registry ${entry.sha256}, downloaded ${digest}); nothing installed`);
  if (WASM_MAGIC.some((byte, i) => bytes[i] !== byte)) throw new PackageError(`${name}: the download is not a wasm module; nothing installed`);
  store.install(entry, bytes);
  host.report?.({ action: 'installed', name: entry.name, version: entry.version, host: new URL(entry.url).host, bytes: bytes.length, sha256: digest });
  return `installed ${entry.name} ${entry.version} (${entry.commands.join(', ')})\n`;
}

function describe(entry: PackageEntry, installed: PackageEntry | undefined): string {
  return [
    `name: ${entry.name}`,
    `version: ${entry.version}`,
    `description: ${entry.description}`,
    `commands: ${entry.commands.join(' ')}`,
    `size: ${entry.size}`,
    `sha256: ${entry.sha256}`,
    `url: ${entry.url}`,
    `installed: ${installed === undefined ? 'no' : installed.version}`,
  ].join('\n') + '\n';
}

async function main(host: PackageHost, sys: Syscalls, argv: string[]): Promise<number> {
  const [command, ...args] = argv.slice(1);
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    await write(sys, command === undefined ? 2 : 1, USAGE);
    return command === undefined ? 2 : 0;
  }
  const { policy, store } = host;
  if (command === 'list') {
    for (const p of store.list()) await write(sys, 1, `${p.name} ${p.version} (${p.commands.join(', ')})\n`);
    return 0;
  }
  if (!['install', 'remove', 'info', 'search'].includes(command)) {
    await write(sys, 2, `pkg: unknown command '${command}'\n${USAGE}`);
    return 2;
  }
  if (!policy.enabled) {
    const reason = 'packages are disabled (the sandbox\'s package policy has enabled: false)';
    if (command === 'install') for (const spec of args) host.report?.({ action: 'refused', name: parseSpec(spec).name, reason });
    throw new PackageError(reason);
  }
  if (command === 'remove') {
    if (args.length === 0) throw new PackageError('remove: name a package');
    let status = 0;
    for (const name of args) {
      checkName(name);
      if (store.remove(name) === undefined) {
        await write(sys, 2, `pkg: ${name}: not installed\n`);
        status = 1;
      } else {
        host.report?.({ action: 'removed', name });
        await write(sys, 1, `removed ${name}\n`);
      }
    }
    return status;
  }
  if (command === 'info') {
    if (args.length !== 1) throw new PackageError('info: name one package');
    const { name, version } = parseSpec(args[0] as string);
    checkName(name);
    const entry = findEntry(await loadIndex(sys, policy), name, version);
    if (entry === undefined) throw new PackageError(`${args[0]}: no such package in the registry`);
    await write(sys, 1, describe(entry, store.get(name)));
    return 0;
  }
  if (command === 'search') {
    const word = (args[0] ?? '').toLowerCase();
    const index = await loadIndex(sys, policy);
    const newest = new Map<string, PackageEntry>();
    for (const entry of index.entries) newest.set(entry.name, findEntry(index, entry.name, undefined) as PackageEntry);
    for (const entry of [...newest.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      if (word !== '' && !entry.name.toLowerCase().includes(word) && !entry.description.toLowerCase().includes(word)) continue;
      await write(sys, 1, `${entry.name} ${entry.version} - ${entry.description}\n`);
    }
    return 0;
  }
  if (args.length === 0) throw new PackageError('install: name a package');
  for (const spec of args) {
    const { name } = parseSpec(spec);
    const problem = nameProblem(name);
    if (problem === undefined) continue;
    const reason = `invalid package name: ${problem}`;
    host.report?.({ action: 'refused', name, reason });
    throw new PackageError(reason);
  }
  const index = await loadIndex(sys, policy);
  let status = 0;
  for (const spec of args) {
    try {
      await write(sys, 1, await install(sys, host, index, spec));
    } catch (error) {
      if (!(error instanceof PackageError)) throw error;
      host.report?.({ action: 'refused', name: parseSpec(spec).name, reason: error.message });
      await write(sys, 2, `pkg: ${error.message}\n`);
      status = 1;
    }
  }
  return status;
}

/** The `pkg` command of a kernel whose packages are `host`'s. */
export function pkgProgram(host: PackageHost): ExternalProgram {
  return {
    name: 'pkg',
    async run(process: Process, sys: Syscalls): Promise<number> {
      try {
        return await main(host, sys, process.argv);
      } catch (error) {
        if (error instanceof PackageError) {
          await write(sys, 2, `pkg: ${error.message}\n`);
          return 1;
        }
        if (error instanceof KernelError) {
          await write(sys, 2, `pkg: ${error.message}\n`);
          return 1;
        }
        throw error;
      }
    },
  };
}
