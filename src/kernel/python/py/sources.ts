// The Python that runs inside every interpreter, kept as real .py files beside this one and
// bundled as text at build time (`?raw`: Vite and vitest natively, esbuild through
// scripts/bundle-node-kernel.mjs's raw-text plugin):
// - prelude.py: the `_airlock` bridge to the kernel device, run before any user code;
// - driver.py: the `python3` command line on an interpreter restored from a snapshot;
// - sandbox.py: `_airlock_sandbox`, os/subprocess/time/select rewired to kernel calls;
// - network.py: `_airlock_network`, http.client through the host's network path;
// - event_loop.py: `_airlock_event_loop`, asyncio's loop without the JS bridge;
// - extensions.py: `airlock_extensions`, each host extension as a function.
// Values the kernel owns are written into the source where it says {{NAME}}.

import { PYTHON_USER_SITE } from '../../vfs/boot.js';
import { KERNEL_DEVICE_PATH } from '../kernel-device.js';
import driver from './driver.py?raw';
import eventLoop from './event_loop.py?raw';
import extensions from './extensions.py?raw';
import network from './network.py?raw';
import prelude from './prelude.py?raw';
import sandbox from './sandbox.py?raw';

/** `source` with each {{NAME}} replaced by `values[NAME]`; every one must be known. */
function fill(file: string, source: string, values: Record<string, string>): string {
  return source.replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${file}: no value for {{${name}}}`);
    return value;
  });
}

export const PRELUDE_SOURCE = fill('prelude.py', prelude, { KERNEL_DEVICE_PATH });
export const DRIVER_SOURCE = fill('driver.py', driver, { PYTHON_USER_SITE });
export const SANDBOX_SOURCE = sandbox;
export const NETWORK_SOURCE = network;
export const EVENT_LOOP_SOURCE = eventLoop;
export const EXTENSIONS_SOURCE = extensions;
