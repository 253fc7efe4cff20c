// What a playground view (the page, the embed) gives its terminal: runs go through the
// controller (its run bookkeeping: banners, the Run button, replacing the sandbox), the
// rest straight to the sandbox; each view adds its own parts (history, `edit`, observers).

import type { Sandbox } from '../../host/browser/index.js';
import type { PlaygroundController } from '../playground/controller.js';
import type { ShellHost } from './terminal-session.js';

export function sandboxShellHost(controller: PlaygroundController, sandbox: Sandbox, own: Partial<ShellHost> = {}): ShellHost {
  return {
    run: (command, options) => controller.run(command, options),
    writeStdin: (data) => sandbox.writeStdin(data),
    interrupt: () => sandbox.interrupt(),
    resizeTerminal: (size) => sandbox.resizeTerminal(size),
    readDir: (path) => sandbox.readDir(path),
    commands: () => sandbox.installedTools,
    ...own,
  };
}
