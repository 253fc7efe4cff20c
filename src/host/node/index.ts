// The host API for Node: `Sandbox.create()` runs the sandbox in a hardened child process.

import { Sandbox as SandboxCore } from '../sandbox.js';
import type { SandboxOptions } from '../types.js';
import { drainWarmPool, nodePlatform, type NodePlatformOptions } from './platform.js';

export * from '../types.js';
export * from '../../protocol/errors.js';
export { DEFAULT_LIMITS } from '../../protocol/limits.js';
export { drainWarmPool };

export type NodeSandboxOptions = SandboxOptions & NodePlatformOptions;

export class Sandbox extends SandboxCore {
  /** Starts a sandbox (a hardened child process) with `options`. */
  static create(options: NodeSandboxOptions = {}): Promise<Sandbox> {
    return Sandbox.createOn(nodePlatform(options), options);
  }
}
