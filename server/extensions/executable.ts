// A host executable as an extension's handler (docs/extensions.md): argv is the configured
// command followed by the sandbox's arguments (no shell), stdin is the command's stdin,
// stdout/stderr stream back, its exit status is the command's. It gets only the configured
// environment (and PATH), never the sandbox's; a call that is over (timeout, kill) kills it.

import { spawn } from 'node:child_process';
import type { ExtensionHandler } from '../../src/host/extensions/spec.js';

export interface ExecutableOptions {
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
}

export function executableHandler(options: ExecutableOptions): ExtensionHandler {
  const [program, ...fixed] = options.command;
  if (program === undefined) throw new TypeError('an executable extension needs a command');
  return async ({ args, stdin, stdout, stderr, signal }) => {
    const child = spawn(program, [...fixed, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...(options.env ?? {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
      signal,
      killSignal: 'SIGKILL',
    });
    const exited = new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, killed) => resolve(code ?? (killed === null ? 1 : 128 + 9)));
    });
    // The child may exit without reading all of its stdin; that is its business.
    child.stdin.on('error', () => undefined);
    const feed = (async () => {
      for await (const piece of stdin) {
        if (!child.stdin.write(piece)) await new Promise((resolve) => child.stdin.once('drain', resolve));
      }
      child.stdin.end();
    })();
    const relay = async (from: NodeJS.ReadableStream, to: { write(data: Uint8Array): Promise<void> }): Promise<void> => {
      for await (const piece of from) await to.write(piece as Uint8Array);
    };
    const [exitCode] = await Promise.all([exited, relay(child.stdout, stdout), relay(child.stderr, stderr), feed]);
    return { exitCode: exitCode & 0xff };
  };
}
