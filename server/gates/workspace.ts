// What a workspace's own commands are: .airlock/gate.yaml (test, build, install: a command
// line run by sh -c, or an argv list) wins; else package.json scripts (npm test / npm run
// build / npm ci --offline), pytest (pytest.ini, conftest.py, [tool.pytest] or test_*.py),
// unittest (tests/ with test*.py), make (a Makefile with the target).

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export type WorkspaceCommand = 'test' | 'build' | 'install';

export class WorkspaceCommandMissing extends Error {
  constructor(readonly command: WorkspaceCommand, workspace: string) {
    super(`${workspace}: no ${command} command (name one in .airlock/gate.yaml as '${command}: ...')`);
    this.name = 'WorkspaceCommandMissing';
  }
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function makeTargets(workspace: string): Set<string> {
  const file = ['GNUmakefile', 'Makefile', 'makefile'].map((name) => join(workspace, name)).find((path) => existsSync(path));
  if (file === undefined) return new Set();
  return new Set([...readFileSync(file, 'utf8').matchAll(/^([A-Za-z0-9_.-]+)\s*:(?!=)/gm)].map((match) => match[1] as string));
}

function hasPytest(workspace: string): boolean {
  if (['pytest.ini', 'conftest.py'].some((name) => existsSync(join(workspace, name)))) return true;
  for (const name of ['pyproject.toml', 'setup.cfg', 'tox.ini']) {
    const path = join(workspace, name);
    if (existsSync(path) && /\[(tool:pytest|tool\.pytest[^\]]*|pytest)\]/.test(readFileSync(path, 'utf8'))) return true;
  }
  const files = [...readdirSync(workspace), ...(existsSync(join(workspace, 'tests')) ? readdirSync(join(workspace, 'tests')) : [])];
  return files.some((name) => /^test_.*\.py$|_test\.py$/.test(name)) && !files.some((name) => /^test[^_].*\.py$/.test(name));
}

/** The argv of the workspace's `command`, or throws WorkspaceCommandMissing. */
export function workspaceCommand(workspace: string, command: WorkspaceCommand, verbose = false): string[] {
  const gateFile = join(workspace, '.airlock/gate.yaml');
  if (existsSync(gateFile)) {
    const named = (parse(readFileSync(gateFile, 'utf8')) as Record<string, unknown> | null)?.[command];
    if (typeof named === 'string') return ['sh', '-c', named];
    if (Array.isArray(named) && named.every((word) => typeof word === 'string')) return named as string[];
  }
  const pkg = readJson(join(workspace, 'package.json'));
  const scripts = (pkg?.scripts ?? {}) as Record<string, unknown>;
  if (command === 'install') {
    if (pkg !== undefined && existsSync(join(workspace, 'package-lock.json'))) return ['npm', 'ci', '--offline', '--no-audit', '--no-fund'];
    throw new WorkspaceCommandMissing(command, workspace);
  }
  if (command === 'test') {
    if (typeof scripts.test === 'string') return ['npm', 'test'];
    if (hasPytest(workspace)) return ['python3', '-m', 'pytest', verbose ? '-vv' : '-q', '-p', 'no:cacheprovider'];
    if (existsSync(join(workspace, 'tests')) && readdirSync(join(workspace, 'tests')).some((name) => /^test.*\.py$/.test(name))) {
      return ['python3', '-m', 'unittest', 'discover', '-s', 'tests', verbose ? '-v' : '-q'];
    }
    if (makeTargets(workspace).has('test')) return ['make', 'test'];
  } else {
    if (typeof scripts.build === 'string') return ['npm', 'run', 'build'];
    const targets = makeTargets(workspace);
    if (targets.has('build')) return ['make', 'build'];
    if (targets.size > 0) return ['make'];
    if (pkg !== undefined) return ['node', '-e', 'require("./package.json")'];
    if (hasPytest(workspace) || existsSync(join(workspace, 'setup.py')) || existsSync(join(workspace, 'pyproject.toml'))) return ['python3', '-m', 'compileall', '-q', '.'];
  }
  throw new WorkspaceCommandMissing(command, workspace);
}
