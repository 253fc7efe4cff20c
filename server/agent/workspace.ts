// Where the agent's tools act. `wasm` (default): an Airlock sandbox holding a copy of the
// working directory at /home/user, with the phase's network policy and no provider key; the
// directory gets the sandbox's result back at the end. `none`: the host directory itself,
// through the host's bash — no isolation at all, for local development only, and labelled
// so wherever it appears.

import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Sandbox, type NodeSandboxOptions } from '../../src/host/node/index.js';
import { copyDirInto, copyDirOut } from '../../src/host/node/copy-dir.js';

export type SandboxKind = 'wasm' | 'vm' | 'none';

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

export interface AgentWorkspace {
  readonly kind: SandboxKind;
  /** The working directory as the agent's tools name it. */
  readonly root: string;
  run(command: string, timeoutMs: number, signal: AbortSignal): Promise<CommandResult>;
  readText(path: string): Promise<string>;
  writeText(path: string, content: string): Promise<void>;
  /** Ends the workspace; `keep`: the host directory gets the agent's result first. */
  close(keep: boolean): Promise<void>;
}

const SANDBOX_ROOT = '/home/user';

export async function openSandboxWorkspace(cwd: string, options: NodeSandboxOptions, agentsMd: string | undefined): Promise<AgentWorkspace> {
  const sandbox = await Sandbox.create(options);
  try {
    await copyDirInto(sandbox, cwd, SANDBOX_ROOT);
    if (agentsMd !== undefined) await sandbox.writeFile(`${SANDBOX_ROOT}/AGENTS.md`, agentsMd);
  } catch (error) {
    await sandbox.destroy();
    throw error;
  }
  const hadAgentsMd = await stat(join(cwd, 'AGENTS.md')).then(() => true, () => false);
  return {
    kind: 'wasm',
    root: SANDBOX_ROOT,
    async run(command, timeoutMs, signal) {
      const r = await sandbox.run(command, { timeoutMs, signal });
      return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, truncated: r.truncated };
    },
    readText: (path) => sandbox.readTextFile(path),
    writeText: (path, content) => sandbox.writeFile(path, content, { parents: true }),
    async close(keep) {
      try {
        if (!keep) return;
        // Out to a directory beside cwd first, then swapped in: a failure half-way leaves cwd as it was.
        const out = `${cwd.replace(/\/+$/, '')}.airlock-out-${process.pid}-${Date.now()}`;
        await copyDirOut(sandbox, SANDBOX_ROOT, out);
        if (agentsMd !== undefined && !hadAgentsMd) await rm(join(out, 'AGENTS.md'), { force: true });
        const old = `${out}-old`;
        await rename(cwd, old);
        await rename(out, cwd);
        await rm(old, { recursive: true, force: true });
      } finally {
        await sandbox.destroy();
      }
    },
  };
}

/** The host itself (sandbox: 'none'): UNSAFE, for local development. */
export function openHostWorkspace(cwd: string, env: NodeJS.ProcessEnv, outputBytes: number): AgentWorkspace {
  const within = (path: string): string => (isAbsolute(path) ? path : resolve(cwd, path));
  return {
    kind: 'none',
    root: cwd,
    run: (command, timeoutMs, signal) =>
      new Promise((done) => {
        execFile('bash', ['-c', command], { cwd, env, timeout: timeoutMs, signal, maxBuffer: outputBytes * 4, encoding: 'utf8' }, (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1;
          done({ exitCode: code, stdout, stderr: error !== null && stderr === '' ? error.message : stderr, truncated: (error as { code?: unknown } | null)?.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER' });
        });
      }),
    readText: (path) => readFile(within(path), 'utf8'),
    async writeText(path, content) {
      await mkdir(dirname(within(path)), { recursive: true });
      await writeFile(within(path), content);
    },
    async close() {},
  };
}

/** The workspace's AGENTS.md: every `*.md` of agentContextDir, in name order. */
export async function assembleAgentsMd(agentContextDir: string | undefined): Promise<string | undefined> {
  if (agentContextDir === undefined) return undefined;
  const names = (await readdir(agentContextDir)).filter((n) => n.endsWith('.md')).sort();
  if (names.length === 0) return undefined;
  const parts = await Promise.all(names.map((n) => readFile(join(agentContextDir, n), 'utf8')));
  return parts.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('\n');
}
