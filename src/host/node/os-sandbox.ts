// The OS layer under the Node sandbox child (issue 20): the child — and so Python's worker
// thread inside it — runs under bubblewrap (Debian's `bwrap`) in its own network, mount,
// PID, IPC and UTS namespaces, as an unprivileged user with no capabilities. Its mount
// namespace holds only what it must read: the Node binary and the system's shared
// libraries, its own code, the wasm directory, Pyodide's directory and the Python snapshot
// file, all read-only, plus a private /proc and a minimal /dev. No /tmp, no /run, no home:
// no host Unix socket is even named. With no network namespace of the host's, no TCP, UDP
// or abstract Unix socket reaches anything.
//
// This is the wall under the realm's own walls (Node's permission model, which does not
// restrict the network in Node 20, and the hardened realm): a bug that gives code the
// child's JS realm still meets the OS. Where bubblewrap cannot run (not installed, or
// namespaces forbidden), the child falls back to `unshare -n` (network only) or to nothing,
// and the sandbox says so (`Sandbox.isolation`, docs/security.md says what is lost).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { OsIsolation } from '../types.js';

/** What the namespaces give; the cgroup's part (cgroup.ts) is added by childCommand. */
export type NamespaceIsolation = Omit<OsIsolation, 'memoryCeiling' | 'cpuBound' | 'cgroup'>;

export interface OsSandboxSpec {
  /** Files and directories the child must read (mounted read-only at the same paths). */
  readable: string[];
  /** Cut the network (the default; the host makes every request for the sandbox). */
  isolateNetwork: boolean;
}

const BWRAP = '/usr/bin/bwrap';
const UNSHARE = '/usr/bin/unshare';
/** The user the child runs as inside its namespace: not root, no capabilities. */
const SANDBOX_UID = '65534';
/** System library directories Node's binary needs (those that exist). */
const LIBRARY_DIRS = ['/lib', '/lib64', '/usr/lib', '/usr/lib64'];

interface Capabilities {
  bubblewrap: boolean;
  unshare: boolean;
  reason: string;
}

let probed: Capabilities | undefined;

/** Which mechanisms work on this machine (probed once, by running them). */
function capabilities(): Capabilities {
  if (probed !== undefined) return probed;
  let reason = '';
  let bubblewrap = false;
  if (!existsSync(BWRAP)) reason = `bubblewrap is not installed (${BWRAP})`;
  else {
    const probe = spawnSync(BWRAP, [...namespaceArgs(true), ...mounts([process.execPath]), '--', process.execPath, '--version'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, encoding: 'utf8' });
    bubblewrap = probe.status === 0;
    if (!bubblewrap) reason = `bubblewrap cannot create namespaces here: ${(probe.stderr ?? '').trim() || `exit ${String(probe.status ?? probe.signal)}`}`;
  }
  const unshare = !bubblewrap && existsSync(UNSHARE) && spawnSync(UNSHARE, ['-n', 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  probed = { bubblewrap, unshare, reason };
  return probed;
}

function namespaceArgs(isolateNetwork: boolean): string[] {
  return [
    '--die-with-parent', '--new-session',
    '--unshare-user', '--uid', SANDBOX_UID, '--gid', SANDBOX_UID, '--cap-drop', 'ALL',
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    ...(isolateNetwork ? ['--unshare-net'] : []),
  ];
}

function mounts(readable: string[]): string[] {
  const paths = [...LIBRARY_DIRS.filter((dir) => existsSync(dir)), process.execPath, ...readable];
  const args: string[] = [];
  for (const path of new Set(paths)) args.push('--ro-bind', path, path);
  return [...args, '--proc', '/proc', '--dev', '/dev', '--chdir', '/'];
}

/**
 * The command prefix that confines a child (empty when nothing can), and what it gives.
 * The program and its arguments follow the prefix.
 */
export function osSandbox(spec: OsSandboxSpec): { prefix: string[]; isolation: NamespaceIsolation } {
  const found = capabilities();
  if (found.bubblewrap) {
    const missing = spec.isolateNetwork ? [] : ['network: isolateNetwork is false, so the child shares the host network'];
    return {
      prefix: [BWRAP, ...namespaceArgs(spec.isolateNetwork), ...mounts(spec.readable), '--'],
      isolation: { mechanism: 'bubblewrap', network: spec.isolateNetwork, filesystem: true, processes: true, missing },
    };
  }
  const missing = [`filesystem and processes: ${found.reason}`];
  if (spec.isolateNetwork && found.unshare) {
    return { prefix: [UNSHARE, '-n', '--'], isolation: { mechanism: 'unshare', network: true, filesystem: false, processes: false, missing } };
  }
  missing.push(spec.isolateNetwork ? 'network: neither bubblewrap nor unshare -n works here' : 'network: isolateNetwork is false');
  return { prefix: [], isolation: { mechanism: 'none', network: false, filesystem: false, processes: false, missing } };
}
