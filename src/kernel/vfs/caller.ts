// Who is asking the VFS: the process whose /proc/self, umask and ids apply.

export interface VfsCaller {
  pid: number;
  umask: number;
  uid: number;
  gid: number;
}

/** The kernel itself (boot, tests): root, the default umask. */
export const KERNEL_CALLER: VfsCaller = { pid: 0, umask: 0o022, uid: 0, gid: 0 };
