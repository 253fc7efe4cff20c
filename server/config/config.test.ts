// The server's configuration: defaults with no file, a YAML file checked against the schema
// (errors name file, line and reason), environment and command-line overrides in order.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromCommandLine, UsageError } from '../main.js';
import { defaultConfig } from './schema.js';

const dir = mkdtempSync(join(tmpdir(), 'airlock-config-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const errorOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
  return 'no error';
};

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('server configuration', () => {
  it('needs nothing: the defaults', () => {
    expect(configFromCommandLine([], {})).toEqual(defaultConfig());
  });

  it('reads a YAML file, then the environment, then options, later winning', () => {
    const path = file('ok.yaml', 'server:\n  port: 8000\n  host: 127.0.0.2\nnetwork:\n  allowedHosts: [api.github.com, "*.pypi.org"]\nlog: { level: warn }\n');
    const config = configFromCommandLine(['--config', path, '--port', '9000'], { AIRLOCK_PORT: '8500', AIRLOCK_HOST: '127.0.0.3', AIRLOCK_LOG_LEVEL: 'debug' });
    expect(config).toMatchObject({ server: { port: 9000, host: '127.0.0.3' }, network: { allowedHosts: ['api.github.com', '*.pypi.org'] }, log: { level: 'debug' } });
    expect(configFromCommandLine([], { AIRLOCK_CONFIG: path, AIRLOCK_NET_ALLOW: 'a.test, b.test' })).toMatchObject({ server: { port: 8000 }, network: { allowedHosts: ['a.test', 'b.test'] } });
  });

  it('stops at a bad key or value, naming the file, the line and the reason', () => {
    const unknown = file('unknown.yaml', '# comment\nserver:\n  port: 8000\n  hots: 127.0.0.1\n');
    expect(errorOf(() => configFromCommandLine(['-c', unknown], {}))).toBe(`ConfigError: ${unknown}:4: unknown key server.hots`);
    const wrongType = file('type.yaml', 'network:\n  allowedHosts:\n    - a.test\n    - 42\nserver:\n  port: 70000\n');
    expect(errorOf(() => configFromCommandLine(['-c', wrongType], {}))).toBe(`ConfigError: ${wrongType}:4: network.allowedHosts.1 must be string\n${wrongType}:6: server.port must be <= 65535`);
    const section = file('section.yaml', 'gateway:\n  x: 1\n');
    expect(errorOf(() => configFromCommandLine(['-c', section], {}))).toBe(`ConfigError: ${section}:1: unknown key gateway`);
    const level = file('level.yaml', 'log:\n  level: loud\n');
    expect(errorOf(() => configFromCommandLine(['-c', level], {}))).toMatch(/level.yaml:2: log.level must be one of fatal, error, warn, info/);
    const syntax = file('syntax.yaml', 'server:\n  port: [1, 2\n');
    expect(errorOf(() => configFromCommandLine(['-c', syntax], {}))).toMatch(/^ConfigError: .*syntax.yaml:\d+: /);
    expect(errorOf(() => configFromCommandLine(['-c', join(dir, 'missing.yaml')], {}))).toMatch(/missing.yaml: cannot read the configuration: ENOENT/);
  });

  it("reads the gates service's workspace root and runs directory from the file or the environment", () => {
    const path = file('gates.yaml', 'gates:\n  workspaces: /srv/workspaces\n  dir: /srv/gates\n');
    expect(configFromCommandLine(['-c', path], {})).toMatchObject({ gates: { workspaces: '/srv/workspaces', dir: '/srv/gates' } });
    expect(configFromCommandLine(['-c', path], { AIRLOCK_GATES_WORKSPACES: '/w' })).toMatchObject({ gates: { workspaces: '/w', dir: '/srv/gates' } });
    const typo = file('gates-typo.yaml', 'gates:\n  workspace: /w\n');
    expect(errorOf(() => configFromCommandLine(['-c', typo], {}))).toBe(`ConfigError: ${typo}:2: unknown key gates.workspace`);
  });

  it('names the variable or option behind a bad override', () => {
    expect(errorOf(() => configFromCommandLine([], { AIRLOCK_PORT: 'eighty' }))).toBe('ConfigError: AIRLOCK_PORT: server.port must be integer');
    expect(errorOf(() => configFromCommandLine(['--port', '-1'], {}))).toBe('ConfigError: option --port: server.port must be integer');
    expect(errorOf(() => configFromCommandLine(['--bogus'], {}))).toBe("UsageError: unknown option '--bogus'");
    expect(errorOf(() => configFromCommandLine(['--port'], {}))).toBe('UsageError: option --port needs a value');
    expect(configFromCommandLine(['--port=0', '--help'], {})).toBe('help');
    expect(UsageError).toBeDefined();
  });
});
