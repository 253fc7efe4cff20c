// A process's descriptor table: small integers mapped to shared open descriptions.

import { Errno, fail } from '../errno.js';
import type { Description } from './description.js';

/** Descriptors a process may hold at once (as `ulimit -n`). */
export const MAX_FDS = 1024;

export class FdTable {
  private readonly slots: Array<Description | undefined> = [];

  get(fd: number): Description {
    const description = this.slots[fd];
    if (description === undefined) fail(Errno.BADF, 'bad file descriptor');
    return description;
  }

  has(fd: number): boolean {
    return this.slots[fd] !== undefined;
  }

  /** Installs `description` at the lowest free descriptor at or above `min`. */
  add(description: Description, min = 0): number {
    for (let fd = min; fd < MAX_FDS; fd++) {
      if (this.slots[fd] === undefined) {
        this.set(fd, description);
        return fd;
      }
    }
    fail(Errno.MFILE, 'too many open files');
  }

  /** Makes `fd` refer to `description`, closing what it referred to before. */
  set(fd: number, description: Description): void {
    if (fd < 0 || fd >= MAX_FDS) fail(Errno.BADF, 'bad file descriptor');
    description.refs += 1;
    const previous = this.slots[fd];
    this.slots[fd] = description;
    if (previous !== undefined) release(previous);
  }

  close(fd: number): void {
    const description = this.get(fd);
    this.slots[fd] = undefined;
    release(description);
  }

  closeAll(): void {
    for (let fd = 0; fd < this.slots.length; fd++) {
      const description = this.slots[fd];
      if (description !== undefined) {
        this.slots[fd] = undefined;
        release(description);
      }
    }
  }

  entries(): Array<[number, Description]> {
    const out: Array<[number, Description]> = [];
    this.slots.forEach((description, fd) => {
      if (description !== undefined) out.push([fd, description]);
    });
    return out;
  }
}

function release(description: Description): void {
  description.refs -= 1;
  if (description.refs === 0) description.release();
}
