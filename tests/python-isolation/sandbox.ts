// One Node sandbox shared by the tests of a describe block, made ready for python3 (the
// snapshot built first, the warm pool drained at the end).

import { afterAll, beforeAll } from 'vitest';
import { pythonSnapshotReady } from '../../src/host/python/node-snapshot.js';
import { kernelBundlePath } from '../../src/host/node/kernel-bundle.js';
import { Sandbox, drainWarmPool } from '../../src/host/node/index.js';

/** Registers the sandbox's set-up and tear-down in the current block; call the result in a test. */
export function sharedPythonSandbox(timeoutMs: number): () => Sandbox {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    await pythonSnapshotReady(await kernelBundlePath());
    sandbox = await Sandbox.create({});
  }, timeoutMs);
  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
  });
  return () => {
    if (sandbox === undefined) throw new Error('the shared sandbox is not created yet');
    return sandbox;
  };
}
