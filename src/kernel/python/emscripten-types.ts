// The parts of Emscripten's FS (as built into pyodide.asm.mjs) that the kernel filesystem
// uses. Emscripten has no published types for its internals; these say exactly what we
// rely on, so a Pyodide upgrade that changes them fails here first.

export interface EmNode {
  id: number;
  name: string;
  mode: number;
  parent: EmNode;
  mount: EmMount;
  mounted: EmMount | null;
  node_ops: EmNodeOps;
  stream_ops: EmStreamOps;
  /** Set by us: the kernel inode this node stands for. */
  kernelIno?: number;
}

export interface EmMount {
  type: EmFilesystem;
  mountpoint: string;
  root: EmNode;
  opts: Record<string, unknown>;
}

export interface EmShared {
  position: number;
  flags: number;
  /** Set by us: the kernel descriptor behind a stream and how many streams share it. */
  kernelFd?: number;
  kernelRefs?: number;
}

export interface EmStream {
  fd: number;
  node: EmNode;
  path: string;
  flags: number;
  position: number;
  seekable: boolean;
  shared: EmShared;
  stream_ops: EmStreamOps;
  tty?: { ops: Record<string, unknown> };
  getdents?: string[] | null;
}

export interface EmAttr {
  dev: number;
  ino: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  rdev: number;
  size: number;
  atime: Date;
  mtime: Date;
  ctime: Date;
  blksize: number;
  blocks: number;
}

export interface EmSetAttr {
  mode?: number;
  size?: number;
  atime?: number;
  mtime?: number;
  ctime?: number;
  dontFollow?: boolean;
}

export interface EmNodeOps {
  getattr?(node: EmNode): EmAttr;
  setattr?(node: EmNode, attr: EmSetAttr): void;
  lookup?(parent: EmNode, name: string): EmNode;
  mknod?(parent: EmNode, name: string, mode: number, dev: number): EmNode;
  rename?(node: EmNode, newDir: EmNode, newName: string): void;
  unlink?(parent: EmNode, name: string): void;
  rmdir?(parent: EmNode, name: string): void;
  readdir?(node: EmNode): string[];
  symlink?(parent: EmNode, newName: string, oldPath: string): EmNode | void;
  readlink?(node: EmNode): string;
}

export interface EmStreamOps {
  open?(stream: EmStream): void;
  close?(stream: EmStream): void;
  dup?(stream: EmStream): void;
  read?(stream: EmStream, buffer: Uint8Array, offset: number, length: number, position: number): number;
  write?(stream: EmStream, buffer: Uint8Array, offset: number, length: number, position: number, canOwn?: boolean): number;
  llseek?(stream: EmStream, offset: number, whence: number): number;
  getattr?(stream: EmStream): EmAttr;
  setattr?(stream: EmStream, attr: EmSetAttr): void;
}

export interface EmFilesystem {
  mount(mount: EmMount): EmNode;
}

export interface EmErrnoErrorClass {
  new (errno: number): Error & { errno: number };
}

export interface EmFS {
  root: EmNode;
  streams: Array<EmStream | null>;
  currentPath: string;
  ErrnoError: EmErrnoErrorClass;
  mount(type: EmFilesystem, opts: Record<string, unknown>, mountpoint: string): EmNode;
  createNode(parent: EmNode | null, name: string, mode: number, rdev: number): EmNode;
  destroyNode(node: EmNode): void;
  lookupNode(parent: EmNode, name: string): EmNode;
  lookupPath(path: string, opts?: { follow?: boolean; parent?: boolean; noent_okay?: boolean }): { path: string; node?: EmNode };
  hashName(parentId: number, name: string): number;
  nameTable: Array<(EmNode & { name_next?: EmNode }) | undefined>;
  getPath(node: EmNode): string;
  createStream(stream: Partial<EmStream> & { shared?: EmShared }, fd?: number): EmStream;
  closeStream(fd: number): void;
  getStream(fd: number): EmStream | undefined;
  open(path: string | EmNode, flags: number | string, mode?: number): EmStream;
  close(stream: EmStream): void;
  read(stream: EmStream, buffer: Uint8Array, offset: number, length: number, position?: number): number;
  write(stream: EmStream, buffer: Uint8Array, offset: number, length: number, position?: number, canOwn?: boolean): number;
  llseek(stream: EmStream, offset: number, whence: number): number;
  rename(oldPath: string, newPath: string): void;
  chdir(path: string): void;
  cwd(): string;
  mkdir(path: string, mode?: number): EmNode;
  rmdir(path: string): void;
  unlink(path: string): void;
  stat(path: string, dontFollow?: boolean): unknown;
  lstat(path: string): unknown;
  readlink(path: string): string;
  readdir(path: string): string[];
  symlink(oldPath: string, newPath: string): EmNode;
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
  isLink(mode: number): boolean;
  isMountpoint(node: EmNode): boolean;
  mkdirTree(path: string): void;
  unmount(mountpoint: string): void;
  makedev(major: number, minor: number): number;
  registerDevice(device: number, ops: EmStreamOps): void;
  mkdev(path: string, mode: number, device: number): EmNode;
}
