// Runs a case with real /bin/bash on this machine: in a fresh temporary directory holding
// the case's files, with a small fixed environment, so the same script means the same thing
// here and in the sandbox (whose cwd is /home/user: the temp path is rewritten to it).

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CompatCase } from './cases.js';

export interface Outcome {
  stdout: Buffer;
  stderr: Buffer;
  status: number;
  timedOut: boolean;
}

export const SANDBOX_HOME = '/home/user';

export function makeCaseDir(c: CompatCase): string {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-compat-'));
  for (const [path, content] of Object.entries(c.files ?? {})) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return dir;
}

/** The environment cases run with (the sandbox gets the same variables). */
export function caseEnv(home: string, path: string): Record<string, string> {
  return { HOME: home, PATH: path, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', USER: 'user', TZ: 'UTC', PWD: home };
}

export function runWithBash(c: CompatCase, pathPrefix = ''): Promise<Outcome> {
  return runInCaseDir(c, '/bin/bash', { path: `${pathPrefix}/usr/local/bin:/usr/bin:/bin` });
}

/**
 * Runs `program -c SCRIPT` (a bash, or a shell standing in for it with `argv0`) on a case in
 * its own temporary directory, the directory's path in the output rewritten to /home/user.
 */
export async function runInCaseDir(c: CompatCase, program: string, options: { path: string; argv0?: string }): Promise<Outcome> {
  const dir = makeCaseDir(c);
  try {
    const outcome = await spawnCollect(program, ['-c', c.script], {
      cwd: dir,
      env: caseEnv(dir, options.path),
      stdin: c.stdin,
      timeoutMs: c.timeout ?? 10_000,
      argv0: options.argv0,
    });
    return {
      ...outcome,
      stdout: replaceAll(outcome.stdout, dir, SANDBOX_HOME),
      stderr: replaceAll(outcome.stderr, dir, SANDBOX_HOME),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function replaceAll(buffer: Buffer, from: string, to: string): Buffer {
  const text = buffer.toString('latin1');
  if (!text.includes(from)) return buffer;
  return Buffer.from(text.split(from).join(to), 'latin1');
}

export function spawnCollect(
  program: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string; timeoutMs: number; argv0?: string },
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, ...(options.argv0 === undefined ? {} : { argv0: options.argv0 }) });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, options.timeoutMs);
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr),
        status: code ?? (signal ? 128 + (osSignals[signal] ?? 0) : 1),
        timedOut,
      });
    });
  });
}

const osSignals: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGPIPE: 13, SIGTERM: 15, SIGABRT: 6, SIGSEGV: 11 };
