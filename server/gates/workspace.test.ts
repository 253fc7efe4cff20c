// What a workspace's own commands are (the `tests`, `build` and install phases of a gate):
// .airlock/gate.yaml wins; then package.json, pytest, unittest, make — and a clear error
// naming the command when there is none.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceCommandMissing, workspaceCommand } from './workspace.js';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'airlock-workspace-'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

function files(entries: Record<string, string>): void {
  for (const [path, text] of Object.entries(entries)) {
    mkdirSync(dirname(join(ws, path)), { recursive: true });
    writeFileSync(join(ws, path), text);
  }
}

describe('workspaceCommand', () => {
  it('.airlock/gate.yaml names the command (a command line, run by sh -c, or an argv list) and wins', () => {
    files({ '.airlock/gate.yaml': 'test: npm run test:unit -- --reporter tap\nbuild: [make, -j2, all]\n', 'package.json': '{"scripts":{"test":"vitest","build":"tsc"}}' });
    expect(workspaceCommand(ws, 'test')).toEqual(['sh', '-c', 'npm run test:unit -- --reporter tap']);
    expect(workspaceCommand(ws, 'build')).toEqual(['make', '-j2', 'all']);
    // A command it does not name falls through to the workspace's own files.
    expect(() => workspaceCommand(ws, 'install')).toThrow(WorkspaceCommandMissing);
  });

  it("package.json: its test and build scripts; install is npm ci --offline when there is a lockfile", () => {
    files({ 'package.json': '{"scripts":{"test":"node --test","build":"tsc -p ."}}' });
    expect(workspaceCommand(ws, 'test')).toEqual(['npm', 'test']);
    expect(workspaceCommand(ws, 'test', true)).toEqual(['npm', 'test']);
    expect(workspaceCommand(ws, 'build')).toEqual(['npm', 'run', 'build']);
    expect(() => workspaceCommand(ws, 'install')).toThrow(/no install command/);
    files({ 'package-lock.json': '{}' });
    expect(workspaceCommand(ws, 'install')).toEqual(['npm', 'ci', '--offline', '--no-audit', '--no-fund']);
  });

  it('a package.json without a build script still builds (it parses); without a test script it is not a test command', () => {
    files({ 'package.json': '{"name":"x"}' });
    expect(workspaceCommand(ws, 'build')).toEqual(['node', '-e', 'require("./package.json")']);
    expect(() => workspaceCommand(ws, 'test')).toThrow(WorkspaceCommandMissing);
  });

  it('pytest: pytest.ini, conftest.py, a [tool.pytest] section or test_*.py files; verbose is -vv', () => {
    const pytest = (verbose = false): string[] => workspaceCommand(ws, 'test', verbose);
    files({ 'pytest.ini': '[pytest]\n' });
    expect(pytest()).toEqual(['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider']);
    expect(pytest(true)).toEqual(['python3', '-m', 'pytest', '-vv', '-p', 'no:cacheprovider']);
    rmSync(join(ws, 'pytest.ini'));
    files({ 'conftest.py': '' });
    expect(pytest()[2]).toBe('pytest');
    rmSync(join(ws, 'conftest.py'));
    files({ 'pyproject.toml': '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-ra"\n' });
    expect(pytest()[2]).toBe('pytest');
    rmSync(join(ws, 'pyproject.toml'));
    files({ 'tests/test_math.py': 'def test_one(): pass\n' });
    expect(pytest()[2]).toBe('pytest');
    // A Python project builds by compiling its sources.
    expect(workspaceCommand(ws, 'build')).toEqual(['python3', '-m', 'compileall', '-q', '.']);
  });

  it('unittest: tests/test*.py that are not pytest-style; verbose is -v', () => {
    files({ 'tests/testmath.py': 'import unittest\n' });
    expect(workspaceCommand(ws, 'test')).toEqual(['python3', '-m', 'unittest', 'discover', '-s', 'tests', '-q']);
    expect(workspaceCommand(ws, 'test', true)).toEqual(['python3', '-m', 'unittest', 'discover', '-s', 'tests', '-v']);
  });

  it('make: `make test`, `make build`, else `make` for the build; a variable assignment is not a target', () => {
    files({ Makefile: 'CC := gcc\nall: prog\nprog: main.c\n\t$(CC) -o prog main.c\n' });
    expect(() => workspaceCommand(ws, 'test')).toThrow(/no test command/);
    expect(workspaceCommand(ws, 'build')).toEqual(['make']);
    files({ Makefile: 'test := nothing\nbuild: prog\ntest: build\n\t./prog --self-test\n' });
    expect(workspaceCommand(ws, 'test')).toEqual(['make', 'test']);
    expect(workspaceCommand(ws, 'build')).toEqual(['make', 'build']);
  });

  it('package.json wins over pytest and make; pytest over unittest and make', () => {
    files({ 'package.json': '{"scripts":{"test":"jest"}}', 'pytest.ini': '', Makefile: 'test:\n\ttrue\n' });
    expect(workspaceCommand(ws, 'test')).toEqual(['npm', 'test']);
    rmSync(join(ws, 'package.json'));
    expect(workspaceCommand(ws, 'test')[2]).toBe('pytest');
    rmSync(join(ws, 'pytest.ini'));
    expect(workspaceCommand(ws, 'test')).toEqual(['make', 'test']);
  });

  it('nothing to run: the error names the command and where to name one', () => {
    expect(() => workspaceCommand(ws, 'test')).toThrow(`${ws}: no test command (name one in .airlock/gate.yaml as 'test: ...')`);
    expect(() => workspaceCommand(ws, 'build')).toThrow(`${ws}: no build command (name one in .airlock/gate.yaml as 'build: ...')`);
  });
});
