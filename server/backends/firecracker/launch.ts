// How one Firecracker process is started, decided before anything runs (pure, so the
// decisions are unit-tested here, where there is no KVM): directly (`firecracker
// --api-sock S`), or under the jailer when a jailer binary is present and configured. The
// jailer chroots Firecracker into <chroot base>/firecracker/<id>/root and drops to the
// configured uid/gid, so every file Firecracker is given must be inside that directory and
// is named by its path there: the image's files are hard-linked in (copied when the cache
// is on another filesystem), the run's disks are made in it, and the API socket is found
// under it. Warm starts (snapshot.ts) use the same plan: a snapshot to load, or to write.

import { join } from 'node:path';
import type { FirecrackerVm } from './requests.js';

/** The jailer, when it is used: it must be started as root and drops to uid:gid. */
export interface JailerConfig {
  jailer: string;
  uid: number;
  gid: number;
  chrootBase: string;
}

/** A warm start's files on the host (the cache), as snapshot.ts names them. */
export interface SnapshotFiles {
  state: string;
  memory: string;
  /**
   * The disks the snapshot's VM was made with. A snapshot records its drives' paths and
   * Firecracker opens them on load, before the run's disks are patched in: unjailed they
   * are these placeholders (kept beside the snapshot); jailed they are the jail's own
   * names, which in every jail are the run's disks.
   */
  input: string;
  output: string;
}

export interface LaunchInput {
  firecracker: string;
  jailer: JailerConfig | null;
  /** The VM's id: the run id (or the snapshot's), a UUID as the jailer wants. */
  id: string;
  image: { kernel: string; initrd: string; root: string };
  /** Where the unjailed run's disks are made (the run's directory). */
  runDir: string;
  /** A short directory for the unjailed API socket (a socket path must fit in 108 bytes). */
  socketDir: string;
  memoryMiB: number;
  /** load: restore this snapshot; create: boot cold and write it. null: a cold run. */
  snapshot: { mode: 'load' | 'create'; files: SnapshotFiles } | null;
}

export interface LaunchPlan {
  argv: string[];
  /** The API socket as the host sees it. */
  socket: string;
  /** The paths Firecracker is given (the jail's names when jailed). */
  vm: FirecrackerVm;
  /** Where the host makes the run's disks (inside the jail when jailed). */
  disks: { input: string; output: string };
  /** The snapshot as Firecracker names it (`api`) and where those files are on the host. */
  snapshot: { api: { state: string; memory: string }; host: { state: string; memory: string } } | null;
  /** Read-only files placed in the jail before it starts: [host source, path in the jail]. */
  links: Array<[string, string]>;
  /** Files the jailed Firecracker must own (the writable disks). */
  chown: string[];
  /** The jail's directory (removed after the run), or null. */
  jailDir: string | null;
}

/** The names of every file inside a jail (its root is Firecracker's `/`). */
export const JAIL_NAMES = {
  kernel: '/vmlinuz', initrd: '/initrd.cpio', root: '/root.img', input: '/input.img', output: '/output.img',
  state: '/warm.snap', memory: '/warm.mem', socket: '/api.sock',
} as const;

/** The jailer's argv (chroot, uid/gid drop); Firecracker's own arguments follow `--`. */
export function jailerArgs(options: { jailer: string; firecracker: string; id: string; uid: number; gid: number; chrootBase: string }): string[] {
  return [options.jailer, '--id', options.id, '--exec-file', options.firecracker, '--uid', String(options.uid), '--gid', String(options.gid), '--chroot-base-dir', options.chrootBase, '--', '--api-sock', JAIL_NAMES.socket];
}

/** `<chroot base>/<exec file name>/<id>`: where the jailer builds this VM's jail. */
export function jailDirectory(config: JailerConfig, firecracker: string, id: string): string {
  const execName = firecracker.split('/').pop() ?? 'firecracker';
  return join(config.chrootBase, execName, id);
}

export function planLaunch(input: LaunchInput): LaunchPlan {
  const { snapshot } = input;
  if (input.jailer === null) {
    const disks = snapshot?.mode === 'create'
      ? { input: snapshot.files.input, output: snapshot.files.output }
      : { input: join(input.runDir, 'input.img'), output: join(input.runDir, 'output.img') };
    const files = snapshot === null ? null : { state: snapshot.files.state, memory: snapshot.files.memory };
    const socket = join(input.socketDir, 'api.sock');
    return {
      argv: [input.firecracker, '--api-sock', socket],
      socket,
      vm: { kernel: input.image.kernel, initrd: input.image.initrd, rootDisk: input.image.root, inputDisk: disks.input, outputDisk: disks.output, memoryMiB: input.memoryMiB, tscKhz: 0 },
      disks,
      snapshot: files === null ? null : { api: files, host: files },
      links: [],
      chown: [],
      jailDir: null,
    };
  }
  const jailDir = jailDirectory(input.jailer, input.firecracker, input.id);
  const root = join(jailDir, 'root');
  const inJail = (name: string): string => join(root, name);
  const links: Array<[string, string]> = [
    [input.image.kernel, inJail(JAIL_NAMES.kernel)],
    [input.image.initrd, inJail(JAIL_NAMES.initrd)],
    [input.image.root, inJail(JAIL_NAMES.root)],
  ];
  const api = { state: JAIL_NAMES.state, memory: JAIL_NAMES.memory };
  const host = { state: inJail(JAIL_NAMES.state), memory: inJail(JAIL_NAMES.memory) };
  if (snapshot?.mode === 'load') links.push([snapshot.files.state, host.state], [snapshot.files.memory, host.memory]);
  const disks = { input: inJail(JAIL_NAMES.input), output: inJail(JAIL_NAMES.output) };
  return {
    argv: jailerArgs({ jailer: input.jailer.jailer, firecracker: input.firecracker, id: input.id, uid: input.jailer.uid, gid: input.jailer.gid, chrootBase: input.jailer.chrootBase }),
    socket: inJail(JAIL_NAMES.socket),
    vm: { kernel: JAIL_NAMES.kernel, initrd: JAIL_NAMES.initrd, rootDisk: JAIL_NAMES.root, inputDisk: JAIL_NAMES.input, outputDisk: JAIL_NAMES.output, memoryMiB: input.memoryMiB, tscKhz: 0 },
    disks,
    snapshot: snapshot === null ? null : { api, host },
    links,
    // The input disk is read-only to the guest, but Firecracker opens both as its own user.
    chown: [disks.input, disks.output],
    jailDir,
  };
}

/** A uid or gid from the environment: a positive integer (0 would not drop root). */
function parseId(name: string, text: string): number | string {
  const value = Number(text);
  if (!/^\d{1,10}$/.test(text) || !Number.isInteger(value) || value < 1 || value > 4_294_967_294) return `${name} '${text}' is not a uid/gid (an integer from 1 to 4294967294; 0 would not drop root)`;
  return value;
}

/**
 * Whether runs are jailed: a jailer binary is present and a uid and gid to drop to are
 * configured (options, else $AIRLOCK_FIRECRACKER_UID and $AIRLOCK_FIRECRACKER_GID; the
 * chroot base is $AIRLOCK_FIRECRACKER_CHROOT or /srv/jailer). A configuration that is set
 * but unusable (a bad id, not root) is a problem, never a silent unjailed run.
 */
export function resolveJailer(input: {
  jailerBinary: string | null;
  firecracker: string | null;
  configured: { uid?: number | string; gid?: number | string; chrootBase?: string };
  isRoot: boolean;
}): { config: JailerConfig | null; status: string; problem: string | null } {
  const { uid, gid } = input.configured;
  const chrootBase = input.configured.chrootBase ?? '/srv/jailer';
  if (uid === undefined && gid === undefined) {
    return { config: null, status: input.jailerBinary === null ? 'absent: runs are not jailed' : 'present but not configured (set AIRLOCK_FIRECRACKER_UID and AIRLOCK_FIRECRACKER_GID): runs are not jailed', problem: null };
  }
  const refuse = (problem: string): { config: null; status: string; problem: string } => ({ config: null, status: `configured but unusable: ${problem}`, problem: `jailer: ${problem}` });
  if (input.jailerBinary === null) return refuse('no jailer binary (set AIRLOCK_FIRECRACKER_JAILER or put jailer beside firecracker)');
  if (uid === undefined || gid === undefined) return refuse('AIRLOCK_FIRECRACKER_UID and AIRLOCK_FIRECRACKER_GID must both be set');
  const parsedUid = typeof uid === 'number' ? parseId('AIRLOCK_FIRECRACKER_UID', String(uid)) : parseId('AIRLOCK_FIRECRACKER_UID', uid);
  const parsedGid = typeof gid === 'number' ? parseId('AIRLOCK_FIRECRACKER_GID', String(gid)) : parseId('AIRLOCK_FIRECRACKER_GID', gid);
  if (typeof parsedUid === 'string') return refuse(parsedUid);
  if (typeof parsedGid === 'string') return refuse(parsedGid);
  const execName = input.firecracker?.split('/').pop() ?? '';
  if (input.firecracker !== null && !execName.includes('firecracker')) return refuse(`the jailer only starts a binary whose name contains 'firecracker' (not '${execName}')`);
  if (!chrootBase.startsWith('/')) return refuse(`chroot base '${chrootBase}' is not an absolute path`);
  if (!input.isRoot) return refuse('the jailer must be started as root (it chroots and drops to the configured uid/gid)');
  return { config: { jailer: input.jailerBinary, uid: parsedUid, gid: parsedGid, chrootBase }, status: `used: uid ${parsedUid}, gid ${parsedGid}, chroot ${chrootBase}`, problem: null };
}
