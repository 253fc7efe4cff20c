// The agent's `vm` workspace (sandbox: 'vm'): the tools read, write and edit a host-side copy
// of the working directory, and each `bash` call is one run of the qemu gate backend (a fresh
// ephemeral microVM): the copy goes in read-write at GUEST_ROOT, `sh -c COMMAND` runs there
// under the call's time limit, and the guest's tree comes back through the backend's
// copy-out writer (hostile input: no links, no `..`, capped) and replaces the copy. The VM's
// network is `none` unless the phase's policy allows hosts; then `scoped`, through an egress
// proxy deciding with the phase's own policy (the provider hosts are never allowed, and the
// GitHub token is added by the proxy on the host, so no key enters the VM).

import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, cp, lstat, mkdir, open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { BUILTIN_GROUPS, groupPatterns } from '../../src/host/network/groups.js';
import type { NetworkPolicy } from '../../src/host/network/policy.js';
import { GATE_LIMITS } from '../../src/protocol/limits.js';
import type { SandboxClient, SandboxRun, SandboxSpec } from '../backends/contract.js';
import { startEgressProxy, type ProxyDecision } from '../egress-proxy/index.js';
import { QemuSandboxClient, type EgressProxyFactory } from '../backends/qemu/qemu-client.js';
import { parseSandboxSpec } from '../backends/spec.js';
import type { AgentWorkspace, CommandResult } from './workspace.js';

/** Where the workspace is in the guest (the guest's user owns /home/user). */
export const GUEST_ROOT = '/home/user/work';

export class VmWorkspaceError extends Error {}

export interface VmWorkspaceOptions {
  /** The phase's network policy (phasePolicy). */
  policy: NetworkPolicy;
  /** The backend (default: a QemuSandboxClient, warm-starting `none` runs, with a proxy for this policy). */
  client?: SandboxClient;
  agentsMd?: string;
  /** Each decision of a scoped run's egress proxy (for the audit trail). */
  onNetworkDecision?: (decision: ProxyDecision) => void;
}

/** The hosts a phase's strict policy allows, as spec allowlist patterns (the provider group never). */
export function vmAllowlist(policy: NetworkPolicy): string[] {
  if (policy.mode === 'open') throw new VmWorkspaceError("sandbox 'vm': unrestrictedEgress is not supported (a VM's egress is an allowlist of hosts); use sandbox 'wasm' for an open phase");
  const blocked = new Set(groupPatterns((policy.blockedHosts ?? []).flatMap((name) => BUILTIN_GROUPS[name] ?? [name])));
  const hosts = groupPatterns((policy.allowedHosts ?? []).flatMap((name) => BUILTIN_GROUPS[name] ?? [name]));
  return [...new Set(hosts)].filter((host) => !blocked.has(host)).sort();
}

/** What a scoped run's proxy decides with: the spec's hosts under the phase's policy (its provider block, GitHub profile and token). */
export function vmProxyPolicy(policy: NetworkPolicy, allowlist: readonly string[]): NetworkPolicy {
  return { ...policy, mode: 'strict', allowedHosts: [...allowlist] };
}

/** A scoped run's proxy on loopback, started per run. */
export function phaseEgressProxy(policy: NetworkPolicy): EgressProxyFactory {
  return async (spec, onDecision) => {
    const proxy = await startEgressProxy({ policy: vmProxyPolicy(policy, spec.egressAllowlist), host: '127.0.0.1', port: 0, ...(onDecision === undefined ? {} : { onDecision }) });
    if (proxy.port === undefined) {
      await proxy.close();
      throw new VmWorkspaceError('the egress proxy did not listen on a TCP port');
    }
    return { port: proxy.port, caPem: proxy.caCertificate, close: () => proxy.close() };
  };
}

/** The spec of one bash call. */
export function bashSpec(hostCopy: string, command: string, timeoutMs: number, allowlist: readonly string[]): SandboxSpec {
  return parseSandboxSpec({
    label: 'agent bash',
    copyIn: [{ hostPath: hostCopy, guestPath: GUEST_ROOT, mode: 'rw' }],
    phases: [{ name: 'bash', argv: ['sh', '-c', command], cwd: GUEST_ROOT }],
    network: allowlist.length === 0 ? 'none' : 'scoped',
    egressAllowlist: [...allowlist],
    timeBudgetSeconds: Math.min(GATE_LIMITS.maxTimeBudgetSeconds, Math.max(1, Math.ceil(timeoutMs / 1000))),
    copyOut: [GUEST_ROOT],
  });
}

/** A path the agent named, inside the host copy: relative to the root, or absolute under GUEST_ROOT; no symlink on the way. */
async function within(copy: string, path: string): Promise<string> {
  const normal = posix.normalize(path.startsWith('/') ? path : `${GUEST_ROOT}/${path}`);
  if (normal !== GUEST_ROOT && !normal.startsWith(`${GUEST_ROOT}/`)) throw new VmWorkspaceError(`${path}: outside the workspace (${GUEST_ROOT})`);
  const parts = normal.slice(GUEST_ROOT.length).split('/').filter((part) => part !== '');
  let at = copy;
  for (const part of parts) {
    at = join(at, part);
    const info = await lstat(at).catch(() => null);
    if (info === null) break;
    if (info.isSymbolicLink()) throw new VmWorkspaceError(`${path}: a symlink is on the way (not followed in the vm workspace)`);
  }
  return join(copy, ...parts);
}

/** Keeps the permission bits a file had before the run (copy-out writes every file 0644). */
async function keepModes(before: string, after: string): Promise<void> {
  for (const name of await readdir(after)) {
    const next = join(after, name);
    const old = await lstat(join(before, name)).catch(() => null);
    const info = await lstat(next);
    if (info.isDirectory()) {
      if (old?.isDirectory() === true) await keepModes(join(before, name), next);
    } else if (old?.isFile() === true && (old.mode & 0o777) !== (info.mode & 0o777)) {
      await chmod(next, old.mode & 0o777);
    }
  }
}

/** Refusals after which the tree that came back is not the whole workspace. */
function incomplete(refusals: readonly string[]): string | undefined {
  return refusals.find((reason) => /GATE_LIMITS\.copyOut(Bytes|Entries)|could not be read to its end/.test(reason));
}

export async function openVmWorkspace(cwd: string, options: VmWorkspaceOptions): Promise<AgentWorkspace> {
  const allowlist = vmAllowlist(options.policy);
  const client = options.client ?? new QemuSandboxClient({ warm: true, egressProxy: phaseEgressProxy(options.policy) });
  // Health first: an unreachable backend ends the phase before anything is copied.
  const health = await client.health();
  if (!health.reachable) throw new VmWorkspaceError(`sandbox 'vm': the ${client.backend} backend is not reachable: ${health.reasons.join('; ')}`);
  // Beside cwd, so the result swaps in by rename (one filesystem) as the wasm mode's does.
  const base = `${cwd.replace(/\/+$/, '')}.airlock-vm-${process.pid}-${randomUUID().slice(0, 8)}`;
  const copy = join(base, 'work');
  const runsDir = join(base, 'runs');
  const hadAgentsMd = await stat(join(cwd, 'AGENTS.md')).then(() => true, () => false);
  try {
    await cp(cwd, copy, { recursive: true, verbatimSymlinks: true });
    await mkdir(runsDir);
    if (options.agentsMd !== undefined) await writeFile(join(copy, 'AGENTS.md'), options.agentsMd);
  } catch (error) {
    await rm(base, { recursive: true, force: true });
    throw error;
  }

  const apply = async (run: SandboxRun): Promise<string[]> => {
    const notes = run.copyOutRefusals.map((reason) => `not copied back: ${reason}`);
    const problem = incomplete(run.copyOutRefusals);
    const back = join(run.copyOutRoot, GUEST_ROOT.slice(1));
    const came = await lstat(back).then((info) => info.isDirectory(), () => false);
    if (problem !== undefined || !came) {
      notes.push(`the workspace is as it was before this command: the VM's copy ${came ? `came back incomplete (${problem})` : 'did not come back'}`);
    } else {
      await keepModes(copy, back);
      const old = join(base, `old-${run.runId}`);
      await rename(copy, old);
      await rename(back, copy);
      await rm(old, { recursive: true, force: true });
    }
    await rm(join(runsDir, run.runId), { recursive: true, force: true });
    return notes;
  };

  return {
    kind: 'vm',
    root: GUEST_ROOT,
    async run(command, timeoutMs, signal): Promise<CommandResult> {
      const spec = bashSpec(copy, command, timeoutMs, allowlist);
      const run = await client.execute(spec, { runsDir, signal, ...(options.onNetworkDecision === undefined ? {} : { onNetworkDecision: options.onNetworkDecision }) });
      const phase = run.phases[0];
      const stdout = phase === undefined ? '' : await readFile(phase.stdoutPath, 'utf8');
      const stderrLog = phase === undefined ? '' : await readFile(phase.stderrPath, 'utf8');
      const notes = await apply(run);
      if (run.timedOut) notes.unshift(`timed out after ${spec.timeBudgetSeconds} s`);
      if (run.killedByOom) notes.unshift(`killed: out of memory (${spec.memoryLimitMiB} MiB)`);
      const stderr = [stderrLog, ...notes.map((note) => `[vm: ${note}]\n`)].join('');
      // The backend keeps each log's last phaseLogBytes: a log that long was cut at its start.
      const truncated = [stdout, stderrLog].some((log) => Buffer.byteLength(log) >= GATE_LIMITS.phaseLogBytes);
      return { exitCode: run.timedOut || run.killedByOom ? run.exitCode : (phase?.exitCode ?? run.exitCode), stdout, stderr, truncated };
    },
    readText: async (path) => readFile(await within(copy, path), 'utf8'),
    async writeText(path, content) {
      const target = await within(copy, path);
      await mkdir(join(target, '..'), { recursive: true });
      // A symlink planted at the target itself is not followed either.
      const file = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
      try {
        await file.writeFile(content);
      } finally {
        await file.close();
      }
    },
    async close(keep) {
      try {
        if (!keep) return;
        if (options.agentsMd !== undefined && !hadAgentsMd) await rm(join(copy, 'AGENTS.md'), { force: true });
        const old = `${base}-old`;
        await rename(cwd, old);
        await rename(copy, cwd);
        await rm(old, { recursive: true, force: true });
      } finally {
        await rm(base, { recursive: true, force: true });
      }
    },
  };
}
